import Foundation

/// Why an external speech program (a recogniser or synthesiser backend) could not do its job.
public enum CommandError: Error, CustomStringConvertible, Equatable {
    /// The argument list is empty: there is no program to run.
    case emptyCommand
    /// The program is neither an executable path nor found in `searchPath` ($PATH).
    case programNotFound(program: String, searchPath: String)
    /// The program exists but could not be started.
    case launchFailed(program: String, reason: String)
    /// The program exited with a nonzero status; `lastErrorLine` is the last line it wrote to stderr.
    case failed(program: String, exitCode: Int32, lastErrorLine: String)
    /// The program was killed by a signal it did not get from us.
    case killed(program: String, signal: Int32, lastErrorLine: String)
    /// The program ran longer than allowed and was stopped.
    case timedOut(program: String, seconds: Double)
    /// The task waiting for the program was cancelled, so the program was stopped.
    case cancelled(program: String)

    public var description: String {
        switch self {
        case .emptyCommand:
            "no program configured (the argument list is empty)"
        case .programNotFound(let program, let searchPath):
            "program \(program) not found (not an executable path, nor in PATH=\(searchPath))"
        case .launchFailed(let program, let reason):
            "could not start \(program): \(reason)"
        case .failed(let program, let exitCode, let lastErrorLine):
            "\(program) exited with status \(exitCode)" + (lastErrorLine.isEmpty ? " and no message" : ": \(lastErrorLine)")
        case .killed(let program, let signal, let lastErrorLine):
            "\(program) was killed by signal \(signal)" + (lastErrorLine.isEmpty ? "" : ": \(lastErrorLine)")
        case .timedOut(let program, let seconds):
            "\(program) did not finish within \(seconds) s and was stopped"
        case .cancelled(let program):
            "\(program) was stopped because its result is no longer wanted"
        }
    }
}

/// Runs one program from an argument list (no shell), with standard input from a file and
/// standard output and error captured to files in a working folder. Files rather than pipes:
/// nothing can dead-lock on a full pipe, and a program that ignores its input cannot block us.
struct CommandRunner: Sendable {
    /// The program (a path, or a name looked up in $PATH) followed by its arguments.
    let arguments: [String]
    let timeout: Duration
    /// How long a program stopped with SIGTERM after the timeout may take before SIGKILL.
    private let terminationGrace = Duration.seconds(1)

    init(arguments: [String], timeout: Duration) {
        self.arguments = arguments
        self.timeout = timeout
    }

    var program: String { arguments.first ?? "" }

    /// Runs the program in `folder` and returns the file holding what it wrote to standard output.
    func run(standardInput: URL?, in folder: URL) async throws(CommandError) -> URL {
        guard let program = arguments.first else { throw .emptyCommand }
        let executable = try Self.locate(program)
        let outputFile = folder.appendingPathComponent("stdout")
        let errorFile = folder.appendingPathComponent("stderr")
        let process = Process()
        process.executableURL = executable
        process.arguments = Array(arguments.dropFirst())
        process.currentDirectoryURL = folder
        do {
            for file in [outputFile, errorFile] where !FileManager.default.createFile(atPath: file.path, contents: nil) {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file.path])
            }
            process.standardOutput = try FileHandle(forWritingTo: outputFile)
            process.standardError = try FileHandle(forWritingTo: errorFile)
            process.standardInput = try standardInput.map { try FileHandle(forReadingFrom: $0) }
                ?? FileHandle.nullDevice
        } catch {
            throw .launchFailed(program: program, reason: "cannot prepare its files in \(folder.path): \(error)")
        }
        switch await Self.runToCompletion(process, timeout: timeout, grace: terminationGrace) {
        case .notStarted(let reason): throw .launchFailed(program: program, reason: reason)
        case .timedOut: throw .timedOut(program: program, seconds: timeout.inSeconds)
        case .cancelled: throw .cancelled(program: program)
        case .exited: break
        }
        let lastErrorLine = Self.lastLine(of: errorFile)
        switch process.terminationReason {
        case .exit where process.terminationStatus == 0:
            return outputFile
        case .exit:
            throw .failed(program: program, exitCode: process.terminationStatus, lastErrorLine: lastErrorLine)
        case .uncaughtSignal:
            throw .killed(program: program, signal: process.terminationStatus, lastErrorLine: lastErrorLine)
        @unknown default:
            throw .failed(program: program, exitCode: process.terminationStatus, lastErrorLine: lastErrorLine)
        }
    }

    private enum Completion {
        case exited, timedOut, cancelled, notStarted(reason: String)
    }

    /// Starts `process` and waits for it to exit; stops it (SIGTERM, then SIGKILL after `grace`)
    /// when it outlives `timeout` or the calling task is cancelled.
    private static func runToCompletion(_ process: Process, timeout: Duration, grace: Duration) async -> Completion {
        var launchError: String?
        var watchdog: Task<Bool, Never>?
        await withTaskCancellationHandler {
            await withCheckedContinuation { (exited: CheckedContinuation<Void, Never>) in
                process.terminationHandler = { _ in exited.resume() }
                do {
                    try process.run()
                    watchdog = Task { await stop(process, after: timeout, grace: grace) }
                } catch {
                    launchError = "\(error)"
                    exited.resume()
                }
            }
        } onCancel: {
            if process.isRunning { process.terminate() }
        }
        if let launchError { return .notStarted(reason: launchError) }
        watchdog?.cancel()
        if await watchdog?.value == true { return .timedOut }
        return Task.isCancelled ? .cancelled : .exited
    }

    /// Waits `timeout`, then stops `process`; returns whether it had to (false when cancelled first).
    private static func stop(_ process: Process, after timeout: Duration, grace: Duration) async -> Bool {
        do { try await Task.sleep(for: timeout) } catch { return false }
        guard process.isRunning else { return false }
        process.terminate()
        try? await Task.sleep(for: grace)
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        return true
    }

    /// A program looked up like a shell would: a path if it contains "/", otherwise in $PATH.
    static func locate(_ program: String) throws(CommandError) -> URL {
        let searchPath = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let candidates = program.contains("/")
            ? [program]
            : searchPath.split(separator: ":").map { "\($0)/\(program)" }
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw .programNotFound(program: program, searchPath: searchPath)
        }
        return URL(fileURLWithPath: found)
    }

    /// The last non-empty line of a text file, trimmed and shortened for an error message.
    private static func lastLine(of file: URL) -> String {
        guard let data = try? Data(contentsOf: file) else { return "" }
        let line = String(decoding: data, as: UTF8.self)
            .split(whereSeparator: \.isNewline)
            .last { !$0.allSatisfy(\.isWhitespace) } ?? ""
        return String(line.trimmingCharacters(in: .whitespaces).prefix(300))
    }
}

/// A private temporary folder for one job's files (audio, captured output); `remove()` deletes it.
struct ScratchFolder {
    let url: URL

    /// Creates a fresh folder readable only by us; throws the reason as text.
    init(_ purpose: String) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("hotword-\(purpose)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o700])
    }

    func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
