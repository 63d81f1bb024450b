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

    /// Our environment with state, cache and data folders of this test process's own
    /// (`XDG_STATE_HOME`, `XDG_CACHE_HOME`, `XDG_DATA_HOME`), so the history, token and skill lists
    /// the commands under test keep never land in the user's, and no corpus the user fetched
    /// (`hotword data fetch`) slips into what they use.
    /// (Read anew each time: tests set variables such as ALSA's configuration path as they go.)
    static var environment: [String: String] {
        let scratch = FileManager.default.temporaryDirectory
        return ProcessInfo.processInfo.environment.merging(
            ["XDG_STATE_HOME": scratch.appendingPathComponent("hotword-test-state-\(getpid())").path,
             "XDG_CACHE_HOME": scratch.appendingPathComponent("hotword-test-cache-\(getpid())").path,
             "XDG_DATA_HOME": scratch.appendingPathComponent("hotword-test-data-\(getpid())").path]) { $1 }
    }

    /// Runs `hotword arguments…` (or another `executable`) to completion (killed after
    /// `timeout`) and collects its output. Waits without blocking a thread of the shared test pool.
    /// `input`, when given, is its standard input (a pipe, then closed); otherwise it inherits ours.
    static func run(_ arguments: [String], executable: URL = url, input: String? = nil,
                    environment extra: [String: String] = [:], timeout: Duration = .seconds(60)) async throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment.merging(extra) { $1 }
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        let stdin = input.map { _ in Pipe() }
        if let stdin { process.standardInput = stdin }
        let (exit, exited) = AsyncStream<Int32>.makeStream()
        process.terminationHandler = {
            exited.yield($0.terminationStatus)
            exited.finish()
        }
        try process.run()
        if let stdin, let input {
            stdin.fileHandleForWriting.write(Data(input.utf8))
            try stdin.fileHandleForWriting.close()
        }
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

/// A `hotword` process that keeps running (`hotword run`): its standard output and error line
/// by line as they come, signals, and its end.
final class RunningHotword: @unchecked Sendable {  // @unchecked: the line lists and `exitTime` are guarded by `lock`
    private let process = Process()
    private let lock = NSLock()
    private var stdoutLines: [String] = []
    private var stderrLines: [String] = []
    private var exitTime: ContinuousClock.Instant?
    private let stderrDone = DispatchSemaphore(value: 0)
    private let (exit, exited) = AsyncStream<(status: Int32, time: ContinuousClock.Instant)>.makeStream()

    init(_ arguments: [String], environment: [String: String] = [:]) throws {
        process.executableURL = HotwordBinary.url
        process.arguments = arguments
        process.environment = HotwordBinary.environment.merging(environment) { $1 }
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        let exited = exited
        process.terminationHandler = {
            exited.yield((status: $0.terminationStatus, time: .now))
            exited.finish()
        }
        try process.run()
        readLines(from: output.fileHandleForReading) { [self] line in lock.withLock { stdoutLines.append(line) } }
        readLines(from: errors.fileHandleForReading, done: stderrDone) { [self] line in lock.withLock { stderrLines.append(line) } }
    }

    /// The lines printed so far.
    var lines: [String] { lock.withLock { stdoutLines } }

    /// The lines logged to standard error so far.
    var errorLines: [String] { lock.withLock { stderrLines } }

    var isRunning: Bool { process.isRunning }

    var processIdentifier: Int32 { process.processIdentifier }

    /// When the process was seen to end.
    var exitedAt: ContinuousClock.Instant? { lock.withLock { exitTime } }

    /// Sends `signal` (SIGHUP, say) without waiting.
    func send(_ signal: Int32) {
        if process.isRunning { kill(process.processIdentifier, signal) }
    }

    /// Waits until a printed line satisfies `condition` (true) or `timeout` passes (false).
    func waitForLine(timeout: Duration = .seconds(60), _ condition: (String) -> Bool) async -> Bool {
        await wait(timeout: timeout) { lines.contains(where: condition) }
    }

    /// Waits until a logged line satisfies `condition` (true) or `timeout` passes (false).
    func waitForErrorLine(timeout: Duration = .seconds(60), _ condition: (String) -> Bool) async -> Bool {
        await wait(timeout: timeout) { errorLines.contains(where: condition) }
    }

    /// Sends `signal` (Ctrl-C unless told) and waits for the end; kills it if it does not end within `timeout`.
    func stop(signal: Int32 = SIGINT, timeout: Duration = .seconds(10)) async -> (status: Int32, stderr: String) {
        send(signal)
        let watchdog = Task {
            try await Task.sleep(for: timeout)
            process.terminate()
        }
        defer { watchdog.cancel() }
        var status: Int32 = -1
        for await end in exit {
            status = end.status
            lock.withLock { exitTime = end.time }
        }
        // Everything it wrote before it ended.
        await withCheckedContinuation { continuation in
            Thread {
                self.stderrDone.wait()
                continuation.resume()
            }.start()
        }
        return (status, errorLines.map { $0 + "\n" }.joined())
    }

    private func wait(timeout: Duration, _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition() { return true }
            if !process.isRunning { return condition() }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    /// Reads `handle` on a thread of its own until it ends, passing on each complete line.
    private func readLines(from handle: FileHandle, done: DispatchSemaphore? = nil, _ add: @escaping @Sendable (String) -> Void) {
        Thread {
            var pending = Data()
            while case let data = handle.availableData, !data.isEmpty {
                pending += data
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    add(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
                    pending = Data(pending[(newline + 1)...])
                }
            }
            if !pending.isEmpty { add(String(decoding: pending, as: UTF8.self)) }
            done?.signal()
        }.start()
    }
}
