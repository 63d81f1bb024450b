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
///
/// The program runs in a process group of its own, so stopping it (timeout, cancellation) also
/// stops whatever it started — a wrapper script's `whisper-cli`, say.
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
                throw .launchFailed(program: program, reason: String(cString: strerror(error.code)))
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

/// A child process started with posix_spawn as the leader of a new process group.
private final class ChildProcess: @unchecked Sendable {  // @unchecked: `reaped` is guarded by `lock`
    enum Status {
        case exited(Int32)
        case signalled(Int32)
    }

    struct SpawnError: Error {
        let code: Int32  // an errno value
    }

    let pid: pid_t
    private let lock = NSLock()
    /// Once the child is reaped its pid may be reused, so no signal may be sent after that.
    private var reaped = false

    /// Starts `executable` with `arguments` (program name first), its standard streams opened
    /// from the given paths, with every signal at its default disposition.
    init(executable: String, arguments: [String], standardInput: String, standardOutput: String,
         standardError: String) throws(SpawnError) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, standardInput, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, standardOutput, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, standardError, O_WRONLY | O_CREAT | O_TRUNC, 0o600)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Our own process may ignore or block signals (SIGPIPE, say); the program must not inherit that.
        var allSignals = sigset_t(), noSignals = sigset_t()
        sigfillset(&allSignals)
        sigemptyset(&noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let argv = arguments.map { strdup($0) } + [nil]
        let environment = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + environment).forEach { free($0) } }
        var pid = pid_t()
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, environment)
        guard result == 0 else { throw SpawnError(code: result) }
        self.pid = pid
    }

    /// Waits (on a thread of its own, not the caller's) until the child exits, and reaps it.
    func waitForExit() async -> Status {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: self.blockingWait()) }.start()
        }
    }

    /// SIGTERM to the whole group, then SIGKILL if the child is still there after `grace`.
    func stop(grace: Duration) async {
        signal(SIGTERM)
        try? await Task.sleep(for: grace)
        signal(SIGKILL)
    }

    private func signal(_ signal: Int32) {
        lock.withLock {
            if !reaped { _ = kill(-pid, signal) }
        }
    }

    private func blockingWait() -> Status {
        // Wait without reaping first, so that `signal` never targets a pid already released.
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0, errno == EINTR {}
        var status: Int32 = 0
        lock.withLock {
            while waitpid(pid, &status, 0) < 0, errno == EINTR {}
            reaped = true
        }
        let signal = status & 0x7f
        return signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal)
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
