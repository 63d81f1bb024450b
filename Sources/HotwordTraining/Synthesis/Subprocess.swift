import Dispatch
import Foundation

/// Runs the text-to-speech and recognition programs: always an executable and an argument list
/// (never a shell), so phrases and paths reach the program exactly as given.
struct Subprocess: Sendable {
    struct Output: Sendable {
        var status: Int32
        var standardOutput: String
        var standardError: String
    }

    /// Directories searched for programs (the PATH variable by default).
    let searchPath: [String]
    /// A program still running after this long is stopped and reported as failed.
    let timeout: TimeInterval

    init(searchPath: String? = nil, timeout: TimeInterval = 120) {
        let path = searchPath ?? ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        self.searchPath = path.split(separator: ":").map(String.init)
        self.timeout = timeout
    }

    var searchPathText: String { searchPath.joined(separator: ":") }

    /// The executable called `name` in the search path, if there is one.
    func locate(_ name: String) -> URL? {
        for directory in searchPath {
            let candidate = URL(fileURLWithPath: directory).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }

    /// Runs `executable arguments…` to completion. A non-zero exit status is an error unless
    /// `allowFailure`; standard input is empty.
    @discardableResult
    func run(_ executable: URL, _ arguments: [String], allowFailure: Bool = false) throws(SynthesisError) -> Output {
        let command = ([executable.lastPathComponent] + arguments).joined(separator: " ")
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        do {
            try process.run()
        } catch {
            throw .programFailed(command: command, reason: "cannot start: \(error.localizedDescription)")
        }
        // Both pipes are drained while the program runs so a full pipe can never block it.
        let errorText = PipeDrain(errors.fileHandleForReading)
        let watchdog = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        let standardOutput = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        watchdog.cancel()
        let result = Output(status: process.terminationStatus, standardOutput: standardOutput,
                            standardError: errorText.wait())
        if process.terminationReason == .uncaughtSignal {
            throw .programFailed(command: command, reason: "stopped by signal \(result.status)"
                + (result.status == SIGTERM ? " after \(Int(timeout)) s" : ""))
        }
        if result.status != 0 && !allowFailure {
            let detail = result.standardError.trimmingCharacters(in: .whitespacesAndNewlines)
            throw .programFailed(command: command, reason: "exit status \(result.status)"
                + (detail.isEmpty ? "" : ": " + String(detail.suffix(500))))
        }
        return result
    }
}

/// Reads a pipe to its end on a thread of its own.
private final class PipeDrain: Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let box = TextBox()

    init(_ handle: FileHandle) {
        let box = self.box, done = self.done
        DispatchQueue.global().async {
            box.set(String(decoding: handle.readDataToEndOfFile(), as: UTF8.self))
            done.signal()
        }
    }

    func wait() -> String {
        done.wait()
        return box.get()
    }
}

/// A string handed from the reading thread to the waiting one.
private final class TextBox: @unchecked Sendable {  // guarded by `lock`
    private let lock = NSLock()
    private var text = ""

    func set(_ value: String) { lock.withLock { text = value } }
    func get() -> String { lock.withLock { text } }
}
