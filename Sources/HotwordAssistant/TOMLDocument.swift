import HotwordJSON
/// A parsed TOML 1.0 document (https://toml.io/en/v1.0.0): its tables and values, and the line
/// every key was written on, so a message about a value can point at it.
///
/// Our own parser rather than a library: the TOML library used before (TOMLKit, over toml++)
/// aborted on a typo as small as `[!]` (an assertion inside toml++), leaked every parsed
/// document, and kept no source positions for keys.
struct TOMLDocument {
    let root: TOMLTable
    private let keyLines: [[String]: Int]

    /// Parses UTF-8 TOML text; throws the first syntax error, with its line and column.
    init(_ text: String) throws(TOMLSyntaxError) {
        var parser = TOMLParser(Array(text.utf8))
        (root, keyLines) = try parser.parseDocument()
    }

    /// The 1-based line a key path is first written on: a `[table]` header, a (dotted) key, or
    /// a key of an inline table (`["wake", "keywords", "hey susi", "sensitivity"]`). Arrays of
    /// tables have no index in the path.
    func line(of path: [String]) -> Int? {
        keyLines[path]
    }
}

/// A TOML table: its keys in the order they were written.
struct TOMLTable: Equatable, Sendable {
    var entries: [(key: String, value: TOMLValue)]

    subscript(key: String) -> TOMLValue? {
        entries.first { $0.key == key }?.value
    }

    static func == (a: TOMLTable, b: TOMLTable) -> Bool {
        a.entries.elementsEqual(b.entries) { $0.key == $1.key && $0.value == $1.value }
    }
}

/// One TOML value.
enum TOMLValue: Equatable, Sendable {
    case string(String)
    case integer(Int)
    case float(Double)
    case boolean(Bool)
    /// An offset or local date-time, a local date or a local time, validated and kept as written.
    case dateTime(String)
    case array([TOMLValue])
    case table(TOMLTable)

    var string: String? { if case .string(let text) = self { text } else { nil } }
    var int: Int? { if case .integer(let number) = self { number } else { nil } }
    var double: Double? { if case .float(let number) = self { number } else { nil } }
    var bool: Bool? { if case .boolean(let flag) = self { flag } else { nil } }
    var array: [TOMLValue]? { if case .array(let values) = self { values } else { nil } }
    var table: TOMLTable? { if case .table(let table) = self { table } else { nil } }

    /// The value as it could be written in TOML (tables abbreviated).
    var tomlText: String {
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
struct TOMLSyntaxError: Error, Equatable, Sendable, CustomStringConvertible {
    /// 1-based line and column (in characters).
    let line: Int
    let column: Int
    let message: String

    var description: String { "line \(line), column \(column): \(message)" }
}
