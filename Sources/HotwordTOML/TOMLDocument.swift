import HotwordJSON

/// A parsed TOML 1.0 document (https://toml.io/en/v1.0.0): its tables and values, and the line
/// every key was written on, so a message about a value can point at it.
///
/// Our own parser rather than a library: the TOML library used before (TOMLKit, over toml++)
/// aborted on a typo as small as `[!]` (an assertion inside toml++), leaked every parsed
/// document, and kept no source positions for keys.
public struct TOMLDocument {
    public let root: TOMLTable
    private let keyLines: [[String]: Int]

    /// Parses UTF-8 TOML text; throws the first syntax error, with its line and column.
    public init(_ text: String) throws(TOMLSyntaxError) {
        var parser = TOMLParser(Array(text.utf8))
        (root, keyLines) = try parser.parseDocument()
    }

    /// The 1-based line a key path is first written on: a `[table]` header, a (dotted) key, or
    /// a key of an inline table (`["wake", "keywords", "hey susi", "sensitivity"]`). Arrays of
    /// tables have no index in the path.
    public func line(of path: [String]) -> Int? {
        keyLines[path]
    }

    /// `wake.keywords."hey susi".sensitivity`: components quoted where a bare key could not be.
    public static func dotted(_ path: [String]) -> String {
        path.map { component in
            component.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") } && !component.isEmpty
                ? component : "\"\(component)\""
        }.joined(separator: ".")
    }
}

/// A TOML table: its keys in the order they were written.
public struct TOMLTable: Equatable, Sendable {
    public var entries: [(key: String, value: TOMLValue)]

    public subscript(key: String) -> TOMLValue? {
        entries.first { $0.key == key }?.value
    }

    public static func == (a: TOMLTable, b: TOMLTable) -> Bool {
        a.entries.elementsEqual(b.entries) { $0.key == $1.key && $0.value == $1.value }
    }
}

/// One TOML value.
public enum TOMLValue: Equatable, Sendable {
    case string(String)
    case integer(Int)
    case float(Double)
    case boolean(Bool)
    /// An offset or local date-time, a local date or a local time, validated and kept as written.
    case dateTime(String)
    case array([TOMLValue])
    case table(TOMLTable)

    public var string: String? { if case .string(let text) = self { text } else { nil } }
    public var int: Int? { if case .integer(let number) = self { number } else { nil } }
    public var double: Double? { if case .float(let number) = self { number } else { nil } }
    public var bool: Bool? { if case .boolean(let flag) = self { flag } else { nil } }
    public var array: [TOMLValue]? { if case .array(let values) = self { values } else { nil } }
    public var table: TOMLTable? { if case .table(let table) = self { table } else { nil } }

    /// The value as it could be written in TOML (tables abbreviated).
    public var tomlText: String {
        switch self {
        case .string(let text): JSONText.quoted(text)
        case .integer(let number): String(number)
        case .float(let number):
            number.isNaN ? "nan" : number.isInfinite ? (number < 0 ? "-inf" : "inf") : String(number)
        case .boolean(let flag): String(flag)
        case .dateTime(let text): text
        case .array(let values): "[" + values.map(\.tomlText).joined(separator: ", ") + "]"
        case .table: "{…}"
        }
    }
}

/// Where and why a text is not valid TOML.
public struct TOMLSyntaxError: Error, Equatable, Sendable, CustomStringConvertible {
    /// 1-based line and column (in characters).
    public let line: Int
    public let column: Int
    public let message: String

    public var description: String { "line \(line), column \(column): \(message)" }
}
