import Foundation

/// Where the history database lives by default.
public enum HistoryLocation {
    public static let fileName = "history.sqlite"

    /// `$STATE_DIRECTORY/history.sqlite` in a systemd service with a state directory (the first
    /// one, if it has several: the only place its hardening lets it write); otherwise
    /// `$XDG_STATE_HOME/hotword/history.sqlite`, or `~/.local/state/hotword/history.sqlite`.
    public static func defaultFile(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let state = environment["STATE_DIRECTORY"]?.split(separator: ":").first {
            return URL(fileURLWithPath: String(state)).appendingPathComponent(fileName)
        }
        let base = environment["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: environment["HOME"] ?? NSHomeDirectory()).appendingPathComponent(".local/state")
        return base.appendingPathComponent("hotword").appendingPathComponent(fileName)
    }
}
