/// A problem with a configuration file or a command-line override, with where it is:
/// `file` (a path, or "command line"), the 1-based `line` when known, the dotted `key`.
public enum ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file exists but cannot be read.
    case unreadable(file: String, reason: String)
    /// Not valid TOML.
    case syntax(file: String, line: Int, column: Int, message: String)
    /// A key (or table) this program does not know; `suggestion` is the known key it is closest to.
    case unknownKey(file: String, line: Int?, key: String, suggestion: String?)
    /// A known key with a value of the wrong type or out of range.
    case invalidValue(file: String, line: Int?, key: String, value: String, expected: String)

    public var file: String {
        switch self {
        case .unreadable(let file, _), .syntax(let file, _, _, _), .unknownKey(let file, _, _, _),
             .invalidValue(let file, _, _, _, _):
            file
        }
    }

    public var line: Int? {
        switch self {
        case .unreadable: nil
        case .syntax(_, let line, _, _): line
        case .unknownKey(_, let line, _, _), .invalidValue(_, let line, _, _, _): line
        }
    }

    public var description: String {
        let place = line.map { "\(file):\($0)" } ?? file
        switch self {
        case .unreadable(_, let reason):
            return "\(place): cannot read the configuration: \(reason)"
        case .syntax(_, _, let column, let message):
            return "\(place):\(column): not valid TOML: \(message)"
        case .unknownKey(_, _, let key, let suggestion):
            return "\(place): unknown key '\(key)'" + (suggestion.map { " (did you mean '\($0)'?)" } ?? "")
        case .invalidValue(_, _, let key, let value, let expected):
            return "\(place): \(key) = \(value) is invalid: expected \(expected)"
        }
    }
}

/// One or more configuration problems, in file and line order; all are reported at once so a
/// user can fix a file in one go.
public struct ConfigErrors: Error, Sendable, Equatable, CustomStringConvertible {
    public var errors: [ConfigError]

    public init(_ errors: [ConfigError]) {
        self.errors = errors
    }

    public var description: String {
        errors.map(\.description).joined(separator: "\n")
    }
}
