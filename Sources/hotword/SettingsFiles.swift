import Foundation
import HotwordAssistant

/// Reading `hotword.toml` for the commands that use it (`run`, `serve`).
enum SettingsFiles {
    /// `file` alone, or the system file and then the user's.
    static func load(only file: String?) throws -> AssistantConfiguration {
        do {
            return try ConfigurationLoader.load(file.map { [$0] } ?? ConfigurationFiles.existing(),
                                                onto: AssistantConfiguration(clientVersion: HotwordVersion.current))
        } catch {
            throw CommandFailure("\(error.errors.count == 1 ? "" : "\(error.errors.count) problems in the configuration:\n")\(error)",
                                 status: .configuration)
        }
    }
}
