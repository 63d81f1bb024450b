import ArgumentParser
import Foundation
import HotwordAudio

/// A failure, one line on standard error starting `Error: ` and naming the file, key or value,
/// with the exit status of the README's table. `Hotword.main` reports it. A wrong command line
/// (`ValidationError`, or `usage`) is status 64 and followed by the usage.
struct CommandFailure: Error, CustomStringConvertible {
    enum Status: Int32 {
        /// The command line is wrong: an unknown command or option, a bad value (sysexits.h EX_USAGE).
        case usage = 64
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

    /// A sound device that cannot be opened, with how to `choose` another where that is the fix. A
    /// name ALSA does not know is the configuration's fault (78); one it knows but cannot open now
    /// (busy, unplugged) may work next time (1).
    static func device(_ error: AudioDeviceError, choose: String) -> CommandFailure {
        let message = error.suggestsAnotherDevice ? "\(error) and choose one with \(choose)" : error.description
        if case .cannotOpen(let name, _, _, _) = error, !AudioDevices.isKnown(name) {
            return CommandFailure(message, status: .configuration)
        }
        return CommandFailure(message)
    }

    /// A wrong command line: `message`, then `usage` on lines of its own.
    static func usage(_ message: String, usage: String) -> CommandFailure {
        CommandFailure("\(message)\n\(usage)", status: .usage)
    }

    /// Reports the failure and ends the program.
    func exit() -> Never {
        FileHandle.standardError.write(Data("Error: \(description)\n".utf8))
        Foundation.exit(status.rawValue)
    }
}
