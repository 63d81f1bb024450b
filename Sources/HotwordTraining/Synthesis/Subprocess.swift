import Dispatch
import Foundation
import HotwordChildProcess

/// Runs the text-to-speech and recognition programs: always an executable and an argument list
/// (never a shell), so phrases and paths reach the program exactly as given; a `ChildProcess`,
/// its output read from files once it has ended.
struct Subprocess: Sendable {
    struct Output: Sendable {
        var status: Int32
        var standardOutput: String
        var standardError: String
    }

    /// Directories searched for programs (the PATH variable by default).
    let searchPath: String
    /// A program still running after this long is stopped and reported as failed.
    let timeout: TimeInterval

    init(searchPath: String? = nil, timeout: TimeInterval = 120) {
        self.searchPath = searchPath ?? ChildProcess.defaultSearchPath
        self.timeout = timeout
    }

    var searchPathText: String { searchPath }

    /// The executable called `name` in the search path, if there is one.
    func locate(_ name: String) -> URL? {
        ChildProcess.locate(name, searchPath: searchPath).map { URL(fileURLWithPath: $0) }
    }

    /// Runs `executable arguments…` to completion. A non-zero exit status is an error unless
    /// `allowFailure`; standard input is empty.
    @discardableResult
    func run(_ executable: URL, _ arguments: [String], allowFailure: Bool = false) throws(SynthesisError) -> Output {
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
            throw .programFailed(command: command, reason: "cannot start: \(error)")
        }
        let watchdog = DispatchWorkItem { child.signal(SIGTERM) }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        let status = child.wait()
        watchdog.cancel()
        func text(_ file: URL) -> String { (try? Data(contentsOf: file)).map { String(decoding: $0, as: UTF8.self) } ?? "" }
        switch status {
        case .signalled(let signal):
            throw .programFailed(command: command, reason: "stopped by signal \(signal)" + (signal == SIGTERM ? " after \(Int(timeout)) s" : ""))
        case .exited(let code):
            let result = Output(status: code, standardOutput: text(outputFile), standardError: text(errorFile))
            if code != 0 && !allowFailure {
                let detail = result.standardError.trimmingCharacters(in: .whitespacesAndNewlines)
                throw .programFailed(command: command, reason: "exit status \(code)" + (detail.isEmpty ? "" : ": " + String(detail.suffix(500))))
            }
            return result
        }
    }
}
