import Foundation
import Synchronization

/// A program started with posix_spawn, without a shell, as the leader of a process group of
/// its own: stopping it (`stop`, `signal`) also stops whatever it started — a wrapper script's
/// `whisper-cli`, say. Its standard streams are files (`/dev/null` by default) or ours, never
/// pipes: nothing can dead-lock on a full pipe, and a program that ignores its input cannot
/// block us. It starts
/// with every signal at its default disposition and none blocked, whatever this process does
/// with SIGPIPE or SIGINT, and with this process's environment.
///
/// The one way hotword starts programs: speech engines, the `on_wake` hook, Avahi's announcer,
/// the training data's synthesisers and checks.
public final class ChildProcess: Sendable {
    public enum Status: Sendable, Equatable {
        case exited(Int32)
        case signalled(Int32)
    }

    /// Why a program could not be started: an errno value.
    public struct SpawnError: Error, Sendable, Equatable, CustomStringConvertible {
        public let code: Int32

        public var description: String { String(cString: strerror(code)) }
    }

    public let pid: pid_t
    /// Once the child is reaped its pid may be reused, so no signal may be sent after that.
    private let reaped = Mutex(false)

    /// Starts `executable` (a path) with `arguments` (the program's name first), its standard
    /// streams opened from the given paths (output files created or truncated, mode 0600); nil
    /// shares ours.
    public init(executable: String, arguments: [String], standardInput: String? = "/dev/null",
                standardOutput: String? = "/dev/null", standardError: String? = "/dev/null") throws(SpawnError) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let standardInput { posix_spawn_file_actions_addopen(&actions, 0, standardInput, O_RDONLY, 0) }
        for (descriptor, path) in [(Int32(1), standardOutput), (2, standardError)] {
            if let path { posix_spawn_file_actions_addopen(&actions, descriptor, path, O_WRONLY | O_CREAT | O_TRUNC, 0o600) }
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
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

    /// A program looked up as a shell would: `program` itself if it contains "/", otherwise the
    /// first executable of that name in the folders of `searchPath` ($PATH by default).
    public static func locate(_ program: String, searchPath: String? = nil) -> String? {
        let folders = (searchPath ?? defaultSearchPath).split(separator: ":")
        let candidates = program.contains("/") ? [program] : folders.map { "\($0)/\(program)" }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// $PATH, or the usual folders when it is not set.
    public static var defaultSearchPath: String {
        ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
    }

    /// Waits (on a thread of its own, not the caller's) until the child exits, and reaps it.
    public func waitForExit() async -> Status {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: self.wait()) }.start()
        }
    }

    /// Blocks the calling thread until the child exits, and reaps it.
    public func wait() -> Status {
        // Wait without reaping first, so that `signal` never targets a pid already released.
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0, errno == EINTR {}
        var status: Int32 = 0
        reaped.withLock { reaped in
            while waitpid(pid, &status, 0) < 0, errno == EINTR {}
            reaped = true
        }
        let signal = status & 0x7f
        return signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal)
    }

    /// SIGTERM to the whole group, then SIGKILL if the child is still there after `grace`.
    public func stop(grace: Duration) async {
        signal(SIGTERM)
        try? await Task.sleep(for: grace)
        signal(SIGKILL)
    }

    /// Sends `signal` to the whole group, unless the child has been reaped.
    public func signal(_ signal: Int32) {
        reaped.withLock { reaped in
            if !reaped { _ = kill(-pid, signal) }
        }
    }
}
