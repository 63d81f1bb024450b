import Foundation
import HotwordChildProcess

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

/// Runs one program from an argument list (a `ChildProcess`: no shell, a process group of its
/// own), with standard input from a file and standard output and error captured to files in a
/// working folder; stops it (and whatever it started) at a timeout or when cancelled.
struct CommandRunner: Sendable {
    /// The program (a path, or a name looked up in $PATH) followed by its arguments.
    let arguments: [String]
    let timeout: Duration
    /// How long a program stopped with SIGTERM may take before SIGKILL.
    private static let terminationGrace = Duration.seconds(1)

    init(arguments: [String], timeout: Duration) {
        self.arguments = arguments
        self.timeout = timeout
    }

    /// Runs the program, its output captured in `folder`, and returns the file holding what it
    /// wrote to standard output.
    func run(standardInput: URL?, in folder: URL) async throws(CommandError) -> URL {
        guard let program = arguments.first else { throw .emptyCommand }
        let executable = try Self.locate(program)
        let outputFile = folder.appendingPathComponent("stdout")
        let errorFile = folder.appendingPathComponent("stderr")
        var attempt = 1
        let child: ChildProcess
        while true {
            do {
                child = try ChildProcess(executable: executable.path, arguments: arguments,
                                         standardInput: standardInput?.path ?? "/dev/null",
                                         standardOutput: outputFile.path, standardError: errorFile.path)
                break
            } catch where error.code == ETXTBSY && attempt < 5 {
                // "Text file busy": another thread's child inherited a descriptor still open
                // for writing to the program (just installed or edited); it goes away by itself.
                attempt += 1
                try? await Task.sleep(for: .milliseconds(20 * attempt))
            } catch {
                throw .launchFailed(program: program, reason: error.description)
            }
        }
        let timeout = timeout
        let watchdog = Task { () -> Bool in
            do { try await Task.sleep(for: timeout) } catch { return false }
            await child.stop(grace: Self.terminationGrace)
            return true
        }
        let status = await withTaskCancellationHandler {
            await child.waitForExit()
        } onCancel: {
            Task { await child.stop(grace: Self.terminationGrace) }
        }
        watchdog.cancel()
        if await watchdog.value { throw .timedOut(program: program, seconds: timeout / .seconds(1)) }
        if Task.isCancelled { throw .cancelled(program: program) }
        switch status {
        case .exited(0):
            return outputFile
        case .exited(let code):
            throw .failed(program: program, exitCode: code, lastErrorLine: Self.lastLine(of: errorFile))
        case .signalled(let signal):
            throw .killed(program: program, signal: signal, lastErrorLine: Self.lastLine(of: errorFile))
        }
    }

    /// A program looked up like a shell would: a path if it contains "/", otherwise in $PATH.
    static func locate(_ program: String) throws(CommandError) -> URL {
        guard let found = ChildProcess.locate(program) else {
            throw .programNotFound(program: program, searchPath: ChildProcess.defaultSearchPath)
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
