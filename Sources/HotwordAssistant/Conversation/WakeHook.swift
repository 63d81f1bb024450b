import Foundation
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
        let process = Process()
        process.executableURL = try CommandRunner.locate(program)
        process.arguments = Array(arguments.dropFirst()) + [keyword, String(format: "%.3f", score)]
        process.standardInput = FileHandle.nullDevice
        let logger = logger
        process.terminationHandler = { finished in
            if finished.terminationReason != .exit || finished.terminationStatus != 0 {
                logger.warning("on_wake program \(program) ended with status \(finished.terminationStatus)")
            }
        }
        do {
            try process.run()
        } catch {
            throw .launchFailed(program: program, reason: "\(error)")
        }
    }
}
