import ArgumentParser
import Foundation
import HotwordAssistant

/// Reading `hotword.toml` for the commands that use it (`run`, `serve`), and how they end when
/// the configuration is wrong.
enum SettingsFiles {
    /// `file` alone, or the system file and then the user's.
    static func load(only file: String?) throws -> AssistantConfiguration {
        do {
            return try ConfigurationLoader.load(file.map { [$0] } ?? ConfigurationFiles.existing(),
                                                onto: AssistantConfiguration(clientVersion: HotwordVersion.current))
        } catch {
            throw CommandFailure("\(error.errors.count == 1 ? "" : "\(error.errors.count) problems in the configuration:\n")\(error)")
        }
    }

    /// Prints `message` as other errors are printed and ends with status 78 (EX_CONFIG, as
    /// `hotword config check`): a service manager does not restart what cannot work.
    static func failure(_ message: String) -> ExitCode {
        FileHandle.standardError.write(Data("Error: \(message)\n".utf8))
        return ExitCode(ConfigCheckCommand.configurationErrorStatus)
    }
}
