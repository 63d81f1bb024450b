import Foundation
@testable import HotwordAssistant
import HotwordTestSupport
import Testing

/// Serialized: each test reads the whole process's resident memory, which the other's
/// allocations would move.
@Suite("Process memory", .serialized)
struct ProcessMemoryTests {
    /// The process's resident memory, in KiB.
    static func residentKibibytes() throws -> Int {
        try #require(ProcessStatus.kibibytes("VmRSS"))
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
        // The best of three: a thread of an earlier test (pocketsphinx freeing its decoder, say)
        // may allocate between the two readings.
        let released = try (0..<3).map { _ in try Self.residentReleaseOfLargeBuffer(6 << 20) }.max()!
        #expect(released >= 5 * 1024, "freeing 6 MiB gave back \(released) KiB")
    }

    @Test func freeMemoryInsideTheHeapGoesBackToTheSystem() throws {
        // 24 MiB in small blocks, all touched; then all freed but the last, which pins the
        // heap's top, so glibc keeps the pages of the others.
        let blocks = (0..<(24 << 20) / 512).map { _ in malloc(512)! }
        for block in blocks { memset(block, 1, 512) }
        for block in blocks.dropLast() { free(block) }
        let before = try Self.residentKibibytes()
        ProcessMemory.releaseFreeMemory()
        let released = before - (try Self.residentKibibytes())
        free(blocks.last!)
        #expect(released >= 16 * 1024, "releasing gave back \(released) KiB of about 24 MiB freed")
    }
}
