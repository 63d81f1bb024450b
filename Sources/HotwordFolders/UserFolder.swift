import Foundation

/// Where hotword keeps the files it reads and writes for a user: one rule for every file, the
/// XDG base directories, each with its `$HOME` default, and the folders systemd gives a service.
///
/// | folder | service (systemd) | otherwise | holds |
/// |---|---|---|---|
/// | config | — | `$XDG_CONFIG_HOME/hotword`, `~/.config/hotword` | `hotword.toml` |
/// | state | `$STATE_DIRECTORY` | `$XDG_STATE_HOME/hotword`, `~/.local/state/hotword` | `history.sqlite`, `susi-token.json`, `susi-settings.toml` |
/// | cache | `$CACHE_DIRECTORY` | `$XDG_CACHE_HOME/hotword`, `~/.cache/hotword` | `susi-skills/` (fetched again when gone) |
/// | data | — | `$XDG_DATA_HOME/hotword`, `~/.local/share/hotword` | `data/` (corpora), `enroll/` (takes) |
///
/// `~` is `$HOME` (the account's home folder when it is not set). An empty variable counts as
/// not set, as the XDG specification says; a service's variable may list several folders, of
/// which the first is used.
public enum UserFolder: Sendable {
    case config, state, cache, data

    public func url(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let service = serviceVariable.flatMap({ environment[$0] })?.split(separator: ":").first {
            return URL(fileURLWithPath: String(service))
        }
        let base = environment[xdgVariable].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory())
                .appendingPathComponent(homeDefault)
        return base.appendingPathComponent("hotword")
    }

    /// `name` in this folder.
    public func file(_ name: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        url(environment: environment).appendingPathComponent(name)
    }

    private var xdgVariable: String {
        switch self {
        case .config: "XDG_CONFIG_HOME"
        case .state: "XDG_STATE_HOME"
        case .cache: "XDG_CACHE_HOME"
        case .data: "XDG_DATA_HOME"
        }
    }

    private var homeDefault: String {
        switch self {
        case .config: ".config"
        case .state: ".local/state"
        case .cache: ".cache"
        case .data: ".local/share"
        }
    }

    /// The folder systemd makes for a unit with `StateDirectory=` or `CacheDirectory=`.
    private var serviceVariable: String? {
        switch self {
        case .state: "STATE_DIRECTORY"
        case .cache: "CACHE_DIRECTORY"
        case .config, .data: nil
        }
    }
}
