import Foundation
import HotwordChildProcess
import HotwordTestSupport
import Testing

/// The one way hotword starts programs.
@Suite("ChildProcess")
struct ChildProcessTests {
    @Test func itsStreamsAreFilesAndItsStatusIsReported() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("out"), errors = folder.appendingPathComponent("err")
        let child = try ChildProcess(executable: "/bin/sh", arguments: ["sh", "-c", "echo \"$0 $1\"; echo oops >&2; exit 3", "one two", "three"],
                                     standardOutput: output.path, standardError: errors.path)
        #expect(await child.waitForExit() == .exited(3))
        #expect(try String(contentsOf: output, encoding: .utf8) == "one two three\n", "arguments arrive as given, no shell splits them")
        #expect(try String(contentsOf: errors, encoding: .utf8) == "oops\n")
    }

    @Test func stoppingItStopsWhatItStarted() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let pidFile = folder.appendingPathComponent("grandchild")
        // A wrapper that starts a long program and waits for it, as a speech engine's script does.
        let child = try ChildProcess(executable: "/bin/sh", arguments: ["sh", "-c", "sleep 30 & echo $! > \"$0\"; wait", pidFile.path])
        var grandchild: pid_t?
        for _ in 0..<200 where grandchild == nil {
            grandchild = (try? String(contentsOf: pidFile, encoding: .utf8)).flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            try await Task.sleep(for: .milliseconds(10))
        }
        let sleeper = try #require(grandchild)
        await child.stop(grace: .milliseconds(200))
        #expect(await child.waitForExit() == .signalled(SIGTERM))
        var gone = false
        for _ in 0..<200 where !gone {
            // Reaped by init once its parent is gone; until then a zombie, which is also no longer running.
            let state = (try? String(contentsOf: URL(fileURLWithPath: "/proc/\(sleeper)/stat"), encoding: .utf8))?
                .split(separator: ")").last?.split(separator: " ").first
            gone = state == nil || state == "Z"
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(gone, "the wrapper's sleep \(sleeper) outlived it")
    }

    @Test func itStartsWithDefaultSignalsWhateverWeIgnore() async throws {
        let previous = signal(SIGINT, SIG_IGN)
        defer { signal(SIGINT, previous) }
        let child = try ChildProcess(executable: "/bin/sh", arguments: ["sh", "-c", "kill -INT $$; sleep 5"])
        #expect(await child.waitForExit() == .signalled(SIGINT))
    }

    @Test func programsAreFoundAsAShellFindsThem() throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(ChildProcess.locate("sh", searchPath: "/nonexistent:/bin") == "/bin/sh")
        #expect(ChildProcess.locate("sh", searchPath: folder.path) == nil)
        #expect(ChildProcess.locate("/bin/sh", searchPath: folder.path) == "/bin/sh", "a path is taken as it is")
        let missing = #expect(throws: ChildProcess.SpawnError.self) {
            try ChildProcess(executable: folder.appendingPathComponent("missing").path, arguments: ["missing"])
        }
        #expect(missing?.code == ENOENT)
    }
}
