import Foundation
import HotwordFolders

/// Where the history database lives by default.
public enum HistoryLocation {
    public static let fileName = "history.sqlite"

    /// In the state folder: `$STATE_DIRECTORY/history.sqlite` in a systemd service (the only
    /// place its hardening lets it write), otherwise `~/.local/state/hotword/history.sqlite`.
    public static func defaultFile(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        UserFolder.state.file(fileName, environment: environment)
    }
}
