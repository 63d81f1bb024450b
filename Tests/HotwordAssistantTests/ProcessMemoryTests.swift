import Foundation
@testable import HotwordAssistant
import Testing

@Suite("Process memory")
struct ProcessMemoryTests {
    /// The process's resident memory, in KiB.
    static func residentKibibytes() throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
        return try #require(Int(line.split(separator: " ").dropFirst().first ?? ""))
    }

    /// Touches every page of a fresh `bytes`-long allocation, then frees it; returns how much
    /// resident memory freeing it gave back (KiB).
    static func residentReleaseOfLargeBuffer(_ bytes: Int) throws -> Int {
        let buffer = try #require(malloc(bytes))
        memset(buffer, 1, bytes)
        let touched = try residentKibibytes()
        free(buffer)
        return touched - (try residentKibibytes())
    }

    @Test func aFreedLargeBufferGoesBackToTheSystemAfterALargerOneWasFreed() throws {
        #expect(ProcessMemory.returnLargeAllocationsToTheSystem())
        // Left to itself, glibc would now raise its threshold to 8 MiB, and the 6 MiB buffer
        // after it would stay in the process when freed.
        _ = try Self.residentReleaseOfLargeBuffer(8 << 20)
        let released = try Self.residentReleaseOfLargeBuffer(6 << 20)
        #expect(released >= 5 * 1024, "freeing 6 MiB gave back \(released) KiB")
    }
}
