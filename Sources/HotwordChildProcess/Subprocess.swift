import Dispatch
import Foundation

/// Why a program run to completion failed: it could not start, timed out, was killed, or
/// exited with a non-zero status. `command` is the program's name and arguments.
public struct ProgramFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public let command: String
    public let reason: String

    public init(command: String, reason: String) {
        self.command = command
        self.reason = reason
    }

    public var description: String { "\(command) failed: \(reason)" }
}

/// Runs a program to completion: always an executable and an argument list (never a shell), so
/// phrases and paths reach the program exactly as given; a `ChildProcess`, its output read from
/// files once it has ended. The text-to-speech and recognition programs of training, and
/// espeak-ng reading a phrase aloud as phonemes.
public struct Subprocess: Sendable {
    public struct Output: Sendable {
        public var status: Int32
        public var standardOutput: String
        public var standardError: String
    }

    /// Directories searched for programs (the PATH variable by default).
    public let searchPath: String
    /// A program still running after this long is stopped and reported as failed.
    public let timeout: TimeInterval

    public init(searchPath: String? = nil, timeout: TimeInterval = 120) {
        self.searchPath = searchPath ?? ChildProcess.defaultSearchPath
        self.timeout = timeout
    }

    /// The executable called `name` in the search path, if there is one.
    public func locate(_ name: String) -> URL? {
        ChildProcess.locate(name, searchPath: searchPath).map { URL(fileURLWithPath: $0) }
    }

    /// Runs `executable arguments…` to completion. A non-zero exit status is an error unless
    /// `allowFailure`; standard input is empty.
    @discardableResult
    public func run(_ executable: URL, _ arguments: [String], allowFailure: Bool = false) throws(ProgramFailure) -> Output {
        let command = ([executable.lastPathComponent] + arguments).joined(separator: " ")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hotword-run-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let outputFile = folder.appendingPathComponent("stdout"), errorFile = folder.appendingPathComponent("stderr")
        let child: ChildProcess
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            child = try ChildProcess(executable: executable.path, arguments: [executable.path] + arguments,
                                     standardOutput: outputFile.path, standardError: errorFile.path)
        } catch {
            throw ProgramFailure(command: command, reason: "cannot start: \(error)")
        }
        let watchdog = DispatchWorkItem { child.signal(SIGTERM) }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        let status = child.wait()
        watchdog.cancel()
        func text(_ file: URL) -> String { (try? Data(contentsOf: file)).map { String(decoding: $0, as: UTF8.self) } ?? "" }
        switch status {
        case .signalled(let signal):
            throw ProgramFailure(command: command, reason: "stopped by signal \(signal)" + (signal == SIGTERM ? " after \(Int(timeout)) s" : ""))
        case .exited(let code):
            let result = Output(status: code, standardOutput: text(outputFile), standardError: text(errorFile))
            if code != 0 && !allowFailure {
                let detail = result.standardError.trimmingCharacters(in: .whitespacesAndNewlines)
                throw ProgramFailure(command: command, reason: "exit status \(code)" + (detail.isEmpty ? "" : ": " + String(detail.suffix(500))))
            }
            return result
        }
    }
}
