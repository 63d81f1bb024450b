import Foundation

/// Runs the `hotword` executable built next to the test bundle.
enum HotwordBinary {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// SwiftPM puts the test runner and the executables it depends on in the same folder.
    static var url: URL {
        let runner = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        var folder = runner.deletingLastPathComponent()
        while folder.pathComponents.count > 1, !folder.lastPathComponent.hasSuffix("debug"),
              !folder.lastPathComponent.hasSuffix("release"),
              !FileManager.default.isExecutableFile(atPath: folder.appendingPathComponent("hotword").path) {
            folder.deleteLastPathComponent()
        }
        return folder.appendingPathComponent("hotword")
    }

    /// Runs `hotword arguments…` to completion (killed after `timeout`) and collects its output.
    /// Waits without blocking a thread of the shared test pool.
    static func run(_ arguments: [String], timeout: Duration = .seconds(60)) async throws -> Result {
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        let (exit, exited) = AsyncStream<Int32>.makeStream()
        process.terminationHandler = {
            exited.yield($0.terminationStatus)
            exited.finish()
        }
        try process.run()
        // Read both pipes while the process runs so neither can fill up and block it.
        let stdout = PipeReader(output.fileHandleForReading)
        let stderr = PipeReader(errors.fileHandleForReading)
        let watchdog = Task {
            try await Task.sleep(for: timeout)
            process.terminate()
        }
        defer { watchdog.cancel() }
        var status: Int32 = -1
        for await code in exit { status = code }
        return Result(status: status, stdout: await stdout.text(), stderr: await stderr.text())
    }

    /// Drains a pipe on its own thread.
    private final class PipeReader: Sendable {
        private let (chunks, continuation) = AsyncStream<Data>.makeStream()

        init(_ handle: FileHandle) {
            let continuation = self.continuation
            Thread {
                continuation.yield(handle.readDataToEndOfFile())
                continuation.finish()
            }.start()
        }

        func text() async -> String {
            var data = Data()
            for await chunk in chunks { data += chunk }
            return String(decoding: data, as: UTF8.self)
        }
    }
}
