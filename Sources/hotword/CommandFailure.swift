import ArgumentParser
import Foundation

/// A failure while a command runs, as opposed to a wrong command line (`ValidationError`,
/// status 64, with usage): one line on standard error naming the file, key or value, no usage
/// text, and the exit status of the README's table. `Hotword.main` reports it.
struct CommandFailure: Error, CustomStringConvertible {
    enum Status: Int32 {
        /// The configuration, a device name ALSA does not know, or a model is wrong (sysexits.h
        /// EX_CONFIG, as `hotword config check`): a service manager does not restart what cannot work.
        case configuration = 78
        /// Anything else (a busy loudspeaker, a file that cannot be written): may work next time.
        case other = 1
    }

    let description: String
    let status: Status

    init(_ description: String, status: Status = .other) {
        self.description = description
        self.status = status
    }

    /// Reports the failure and ends the program.
    func exit() -> Never {
        FileHandle.standardError.write(Data("Error: \(description)\n".utf8))
        Foundation.exit(status.rawValue)
    }
}
