import Foundation
import HotwordChildProcess
import Logging

/// Runs the `on_wake` program for each wake word, without a shell: the configured arguments,
/// then the keyword and the score. The assistant does not wait for it; its exit is logged.
struct WakeHook: Sendable {
    let arguments: [String]
    private let logger = Logger(label: "hotword.hook")

    init(arguments: [String]) {
        self.arguments = arguments
    }

    /// Starts the program; throws what prevented it from starting.
    func run(keyword: String, score: Float) throws(CommandError) {
        guard let program = arguments.first else { return }
        let executable = try CommandRunner.locate(program)
        let child: ChildProcess
        do {
            child = try ChildProcess(executable: executable.path, arguments: arguments + [keyword, String(format: "%.3f", score)])
        } catch {
            throw .launchFailed(program: program, reason: error.description)
        }
        let logger = logger
        Task.detached {
            let status = await child.waitForExit()
            if status != .exited(0) { logger.warning("on_wake program \(program) ended with \(status)") }
        }
    }
}
