/// Reads TOML 1.0 from UTF-8 bytes into tables, enforcing the rules that keep a document from
/// defining a key or a table twice: a `[table]` header defines its table once, keys written
/// with dots (`a.b = 1`) define their tables within the section they appear in, and inline
/// tables and arrays are closed once written. Nesting is limited, so hostile input cannot
/// exhaust the stack.
struct TOMLParser {
    private let bytes: [UInt8]
    private var index = 0
    private var line = 1
    private var lineStart = 0
    private var nesting = 0
    /// Each `[table]` section and each inline table gets its own number, so that keys written
    /// with dots can extend only the tables that the same section created.
    private var sectionCount = 0
    private var keyLines: [[String]: Int] = [:]

    /// How deep arrays, inline tables and tables (by `[a.b]` headers and `a.b = …` keys) may
    /// nest: reading and releasing the tables recurses per level, and hotword's own keys go 3 deep.
    static let maximumNesting = 100

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3; lineStart = 3 }  // a byte-order mark
    }

    mutating func parseDocument() throws(TOMLSyntaxError) -> (TOMLTable, [[String]: Int]) {
        let root = TableNode(kind: .header)
        var table = root
        var path: [String] = []
        var section = 0
        while true {
            skipSpaces()
            guard let byte = current else { break }
            if byte == UInt8(ascii: "[") {
                let headerLine = line
                (table, path) = try parseHeader(root: root)
                sectionCount += 1
                section = sectionCount
                record(path, line: headerLine)
            } else if byte != UInt8(ascii: "#") && byte != UInt8(ascii: "\n") && byte != UInt8(ascii: "\r") {
                try parseKeyValue(into: table, path: path, section: section)
            }
            try endOfLine()
        }
        return (root.table, keyLines)
    }

    // MARK: Tables and keys

    /// `[a.b]` or `[[a.b]]`: the table that the following keys go into, and its path.
    private mutating func parseHeader(root: TableNode) throws(TOMLSyntaxError) -> (TableNode, [String]) {
        index += 1
        let isArray = current == UInt8(ascii: "[")
        if isArray { index += 1 }
        skipSpaces()
        let keys = try parseKey()
        try checkDepth(keys.count)
        skipSpaces()
        guard consume(UInt8(ascii: "]")), !isArray || consume(UInt8(ascii: "]")) else {
            throw failure(isArray ? "expected ']]' to end the array-of-tables header" : "expected ']' to end the table header")
        }
        var node = root
        for (depth, key) in keys.dropLast().enumerated() {
            switch node.child(key) {
            case nil: node = node.insertTable(key, kind: .implicit)
            case .table(let child)?: node = child
            case .tables(let children)?: node = children[children.count - 1]
            case .value?: throw failure("'\(Self.dotted(keys.prefix(depth + 1)))' already has a value, so it is not a table")
            }
        }
        let name = Self.dotted(keys)
        let last = keys[keys.count - 1]
        switch (node.child(last), isArray) {
        case (nil, false):
            return (node.insertTable(last, kind: .header), keys)
        case (nil, true):
            return (node.appendTable(last), keys)
        case (.tables?, true):
            return (node.appendTable(last), keys)
        case (.table(let child)?, false) where child.kind == .implicit:
            child.kind = .header
            return (child, keys)
        case (.table?, false):
            throw failure("table [\(name)] is defined twice")
        case (.tables?, false):
            throw failure("[\(name)] is an array of tables ([[\(name)]]), not a table")
        case (.table?, true), (.value?, true):
            throw failure("[[\(name)]] cannot add to '\(name)', which is not an array of tables")
        case (.value?, false):
            throw failure("'\(name)' already has a value, so it is not a table")
        }
    }

    /// `key = value`, into `table` (at `path`, in `section`).
    private mutating func parseKeyValue(into table: TableNode, path: [String], section: Int) throws(TOMLSyntaxError) {
        let keyLine = line, keyStart = index
        let keys = try parseKey()
        try checkDepth(path.count + keys.count + nesting, at: keyStart)
        record(path + keys, line: keyLine)
        var node = table
        for (depth, key) in keys.dropLast().enumerated() {
            // Only when it is needed: joining the names at every part made long dotted keys quadratic.
            var name: String { Self.dotted(path + keys.prefix(depth + 1)) }
            switch node.child(key) {
            case nil:
                node = node.insertTable(key, kind: .dotted(section: section))
            case .table(let child)?:
                switch child.kind {
                case .implicit: child.kind = .dotted(section: section)
                case .dotted(let owner) where owner == section: break
                default: throw failure("table '\(name)' is defined elsewhere; its keys cannot be added here", at: keyStart)
                }
                node = child
            case .tables?:
                throw failure("'\(name)' is an array of tables; its keys cannot be added with a dotted key", at: keyStart)
            case .value?:
                throw failure("'\(name)' already has a value, so it is not a table", at: keyStart)
            }
        }
        let last = keys[keys.count - 1]
        guard node.child(last) == nil else { throw failure("'\(Self.dotted(path + keys))' is defined twice", at: keyStart) }
        skipSpaces()
        guard consume(UInt8(ascii: "=")) else { throw failure("expected '=' after the key '\(Self.dotted(keys))'") }
        skipSpaces()
        node.insertValue(last, try parseValue(path: path + keys))
    }

    /// A key: bare (`a-b_1`) or quoted parts joined by dots.
    private mutating func parseKey() throws(TOMLSyntaxError) -> [String] {
        var parts: [String] = []
        while true {
            skipSpaces()
            switch current {
            case UInt8(ascii: "\"")?:
                if peek(1) == UInt8(ascii: "\""), peek(2) == UInt8(ascii: "\"") { throw failure("a key cannot be a multi-line string") }
                parts.append(try parseBasicString())
            case UInt8(ascii: "'")?:
                if peek(1) == UInt8(ascii: "'"), peek(2) == UInt8(ascii: "'") { throw failure("a key cannot be a multi-line string") }
                parts.append(try parseLiteralString())
            default:
                let start = index
                while let byte = current, Self.isBareKeyByte(byte) { index += 1 }
                guard index > start else { throw failure("expected a key (letters, digits, '_', '-', or a quoted name)") }
                parts.append(String(decoding: bytes[start..<index], as: UTF8.self))
            }
            skipSpaces()
            guard consume(UInt8(ascii: ".")) else { return parts }
        }
    }

    // MARK: Values

    private mutating func parseValue(path: [String]) throws(TOMLSyntaxError) -> TOMLValue {
        guard let byte = current else { throw failure("expected a value") }
        switch byte {
        case UInt8(ascii: "\""):
            return .string(peek(1) == byte && peek(2) == byte ? try parseMultiLineString(basic: true) : try parseBasicString())
        case UInt8(ascii: "'"):
            return .string(peek(1) == byte && peek(2) == byte ? try parseMultiLineString(basic: false) : try parseLiteralString())
        case UInt8(ascii: "["):
            return try parseArray(path: path)
        case UInt8(ascii: "{"):
            return try parseInlineTable(path: path)
        case UInt8(ascii: "t"), UInt8(ascii: "f"):
            for (word, value) in [("true", true), ("false", false)] where bytes[index...].starts(with: word.utf8) {
                index += word.utf8.count
                return .boolean(value)
            }
            throw failure("expected a value: true, false, a number, a date, a quoted string, an array or an inline table")
        default:
            return try parseNumberOrDate()
        }
    }

    private mutating func parseArray(path: [String]) throws(TOMLSyntaxError) -> TOMLValue {
        try enter()
        defer { nesting -= 1 }
        index += 1
        var values: [TOMLValue] = []
        while true {
            try skipBlankLines()
            if consume(UInt8(ascii: "]")) { return .array(values) }
            values.append(try parseValue(path: path))
            try skipBlankLines()
            if consume(UInt8(ascii: "]")) { return .array(values) }
            guard consume(UInt8(ascii: ",")) else { throw failure("expected ',' or ']' in an array") }
        }
    }

    private mutating func parseInlineTable(path: [String]) throws(TOMLSyntaxError) -> TOMLValue {
        try enter()
        defer { nesting -= 1 }
        index += 1
        sectionCount += 1
        let section = sectionCount
        let table = TableNode(kind: .header)
        skipSpaces()
        if consume(UInt8(ascii: "}")) { return .table(table.table) }
        while true {
            skipSpaces()
            try parseKeyValue(into: table, path: path, section: section)
            skipSpaces()
            if consume(UInt8(ascii: "}")) { return .table(table.table) }
            guard consume(UInt8(ascii: ",")) else {
                throw failure("expected ',' or '}' in an inline table (which must stay on one line)")
            }
        }
    }

    /// An integer, a float, or a date and/or time: a run of the characters they are written
    /// with (a date and a time may be separated by one space).
    private mutating func parseNumberOrDate() throws(TOMLSyntaxError) -> TOMLValue {
        let start = index
        while let byte = current, Self.isScalarByte(byte) { index += 1 }
        if index - start == 10, current == UInt8(ascii: " "), let hour = peek(1), Self.isDigit(hour), peek(3) == UInt8(ascii: ":") {
            index += 1
            while let byte = current, Self.isScalarByte(byte) { index += 1 }
        }
        let token = Array(bytes[start..<index])
        guard !token.isEmpty else {
            throw failure("expected a value: true, false, a number, a date, a quoted string, an array or an inline table")
        }
        let text = String(decoding: token, as: UTF8.self)
        let startsLikeADate = token.count >= 10 && token[0..<4].allSatisfy(Self.isDigit) && token[4] == UInt8(ascii: "-")
        if startsLikeADate || token.contains(UInt8(ascii: ":")) {
            guard TOMLDateTime.isValid(token) else { throw failure("'\(text)' is not a valid date or time", at: start) }
            return .dateTime(text)
        }
        guard let value = TOMLNumber.parse(token) else {
            throw failure("'\(text)' is not a number, a date or true/false (text needs quotes)", at: start)
        }
        return value
    }

    // MARK: Strings

    /// `"…"`: escapes allowed, no line breaks.
    private mutating func parseBasicString() throws(TOMLSyntaxError) -> String {
        index += 1
        var utf8: [UInt8] = []
        while let byte = current {
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(decoding: utf8, as: UTF8.self)
            case UInt8(ascii: "\\"):
                try parseEscape(into: &utf8)
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                throw failure("a string in \"…\" must end on the line it starts (use \"\"\"…\"\"\" for several lines)")
            default:
                try checkNotControl(byte)
                utf8.append(byte)
                index += 1
            }
        }
        throw failure("the string is not closed")
    }

    /// `'…'`: taken as written, no line breaks.
    private mutating func parseLiteralString() throws(TOMLSyntaxError) -> String {
        index += 1
        let start = index
        while let byte = current {
            if byte == UInt8(ascii: "'") {
                index += 1
                return String(decoding: bytes[start..<(index - 1)], as: UTF8.self)
            }
            if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") {
                throw failure("a string in '…' must end on the line it starts (use '''…''' for several lines)")
            }
            try checkNotControl(byte)
            index += 1
        }
        throw failure("the string is not closed")
    }

    /// `"""…"""` (with escapes) or `'''…'''`: a line break right after the opening quotes is
    /// dropped, and up to two quotes may come right before the closing ones.
    private mutating func parseMultiLineString(basic: Bool) throws(TOMLSyntaxError) -> String {
        let quote = bytes[index]
        index += 3
        if current == UInt8(ascii: "\n") || (current == UInt8(ascii: "\r") && peek(1) == UInt8(ascii: "\n")) { try newline() }
        var utf8: [UInt8] = []
        while let byte = current {
            if byte == quote, peek(1) == quote, peek(2) == quote {
                var run = 3
                while run < 5, peek(run) == quote { run += 1 }
                utf8 += repeatElement(quote, count: run - 3)
                index += run
                return String(decoding: utf8, as: UTF8.self)
            }
            if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") {
                try newline()
                utf8.append(UInt8(ascii: "\n"))
            } else if basic && byte == UInt8(ascii: "\\") {
                if lineEndingBackslash() {
                    try skipBlankLines(comments: false)
                } else {
                    try parseEscape(into: &utf8)
                }
            } else {
                try checkNotControl(byte)
                utf8.append(byte)
                index += 1
            }
        }
        throw failure("the multi-line string is not closed")
    }

    /// After a backslash in a multi-line basic string: is it followed by nothing but spaces up
    /// to the end of the line? Then it joins the lines (and is skipped).
    private mutating func lineEndingBackslash() -> Bool {
        var offset = 1
        while let byte = peek(offset), byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") { offset += 1 }
        guard peek(offset) == UInt8(ascii: "\n") || (peek(offset) == UInt8(ascii: "\r") && peek(offset + 1) == UInt8(ascii: "\n")) else {
            return false
        }
        index += offset
        return true
    }

    private mutating func parseEscape(into utf8: inout [UInt8]) throws(TOMLSyntaxError) {
        let start = index
        index += 1
        guard let escape = current else { throw failure("the string is not closed") }
        index += 1
        switch escape {
        case UInt8(ascii: "b"): utf8.append(0x08)
        case UInt8(ascii: "t"): utf8.append(0x09)
        case UInt8(ascii: "n"): utf8.append(0x0A)
        case UInt8(ascii: "f"): utf8.append(0x0C)
        case UInt8(ascii: "r"): utf8.append(0x0D)
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): utf8.append(escape)
        case UInt8(ascii: "u"), UInt8(ascii: "U"):
            let length = escape == UInt8(ascii: "u") ? 4 : 8
            guard index + length <= bytes.count, bytes[index..<(index + length)].allSatisfy(Self.isHexDigit),
                  let value = UInt32(String(decoding: bytes[index..<(index + length)], as: UTF8.self), radix: 16),
                  let scalar = Unicode.Scalar(value)
            else { throw failure("invalid Unicode escape (\\u with 4 or \\U with 8 hex digits of a valid character)", at: start) }
            index += length
            utf8 += Array(String(Character(scalar)).utf8)
        default:
            throw failure("invalid escape '\\\(String(decoding: [escape], as: UTF8.self))' in a string", at: start)
        }
    }

    // MARK: Blanks, comments, line ends

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private func peek(_ offset: Int) -> UInt8? {
        index + offset < bytes.count ? bytes[index + offset] : nil
    }

    private mutating func consume(_ byte: UInt8) -> Bool {
        guard current == byte else { return false }
        index += 1
        return true
    }

    private mutating func skipSpaces() {
        while let byte = current, byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") { index += 1 }
    }

    /// Spaces, line breaks and (with `comments`) comments, as between the values of an array.
    private mutating func skipBlankLines(comments: Bool = true) throws(TOMLSyntaxError) {
        while true {
            skipSpaces()
            if comments, current == UInt8(ascii: "#") {
                try skipComment()
            } else if current == UInt8(ascii: "\n") || current == UInt8(ascii: "\r") {
                try newline()
            } else {
                return
            }
        }
    }

    private mutating func skipComment() throws(TOMLSyntaxError) {
        while let byte = current, byte != UInt8(ascii: "\n"), byte != UInt8(ascii: "\r") {
            try checkNotControl(byte)
            index += 1
        }
    }

    /// After a header or a key-value pair: spaces, an optional comment, then a line break or the end.
    private mutating func endOfLine() throws(TOMLSyntaxError) {
        skipSpaces()
        if current == UInt8(ascii: "#") { try skipComment() }
        guard current != nil else { return }
        guard current == UInt8(ascii: "\n") || current == UInt8(ascii: "\r") else {
            throw failure("expected the end of the line (one key = value or [table] per line)")
        }
        try newline()
    }

    /// LF or CR LF.
    private mutating func newline() throws(TOMLSyntaxError) {
        if current == UInt8(ascii: "\r") {
            guard peek(1) == UInt8(ascii: "\n") else { throw failure("a carriage return must be followed by a line feed") }
            index += 1
        }
        index += 1
        line += 1
        lineStart = index
    }

    /// Control characters other than tab are allowed nowhere as written (a string may escape them).
    private func checkNotControl(_ byte: UInt8) throws(TOMLSyntaxError) {
        if (byte < 0x20 && byte != UInt8(ascii: "\t")) || byte == 0x7F {
            throw failure("control character U+\(String(repeating: "0", count: byte < 0x10 ? 3 : 2))\(String(byte, radix: 16, uppercase: true)) is not allowed (write it as an escape in a \"…\" string)")
        }
    }

    private mutating func enter() throws(TOMLSyntaxError) {
        nesting += 1
        guard nesting <= Self.maximumNesting else {
            throw failure("arrays and inline tables are nested more than \(Self.maximumNesting) deep")
        }
    }

    /// A table `depth` levels deep (its key's parts, inside arrays and inline tables) is within `maximumNesting`.
    private func checkDepth(_ depth: Int, at position: Int? = nil) throws(TOMLSyntaxError) {
        guard depth <= Self.maximumNesting else {
            throw failure("tables are nested more than \(Self.maximumNesting) deep (\(depth) levels of key parts, arrays and inline tables)", at: position)
        }
    }

    private mutating func record(_ path: [String], line: Int) {
        if keyLines[path] == nil { keyLines[path] = line }
    }

    private func failure(_ message: String, at position: Int? = nil) -> TOMLSyntaxError {
        let position = min(position ?? index, bytes.count)
        // Characters, not bytes: count the bytes that start a UTF-8 sequence.
        let column = bytes[lineStart..<max(lineStart, position)].reduce(1) { $1 & 0xC0 == 0x80 ? $0 : $0 + 1 }
        return TOMLSyntaxError(line: line, column: column, message: message)
    }

    private static func dotted<Keys: Sequence<String>>(_ keys: Keys) -> String {
        TOMLDocument.dotted(Array(keys))
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }

    private static func isBareKeyByte(_ byte: UInt8) -> Bool {
        isDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
    }

    /// The characters numbers, dates and times are written with.
    private static func isScalarByte(_ byte: UInt8) -> Bool {
        isBareKeyByte(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: ":")
    }
}

/// A table while the document is read: keys in order, and how it came to exist.
private final class TableNode {
    enum Kind: Equatable {
        /// Created as the parent of a header (`a` for `[a.b]`): a later `[a]` may still define it.
        case implicit
        /// Defined by its own `[header]` (or the root).
        case header
        /// Created by a dotted key within the section numbered `section`.
        case dotted(section: Int)
    }

    enum Child {
        case value(TOMLValue)
        case table(TableNode)
        case tables([TableNode])
    }

    var kind: Kind
    private var entries: [(key: String, child: Child)] = []
    private var positions: [String: Int] = [:]

    init(kind: Kind) {
        self.kind = kind
    }

    func child(_ key: String) -> Child? {
        positions[key].map { entries[$0].child }
    }

    func insertValue(_ key: String, _ value: TOMLValue) {
        insert(key, .value(value))
    }

    func insertTable(_ key: String, kind: Kind) -> TableNode {
        let table = TableNode(kind: kind)
        insert(key, .table(table))
        return table
    }

    /// A new element of the array of tables at `key` (created if absent).
    func appendTable(_ key: String) -> TableNode {
        let table = TableNode(kind: .header)
        if let position = positions[key], case .tables(let tables) = entries[position].child {
            entries[position].child = .tables(tables + [table])
        } else {
            insert(key, .tables([table]))
        }
        return table
    }

    private func insert(_ key: String, _ child: Child) {
        positions[key] = entries.count
        entries.append((key, child))
    }

    var table: TOMLTable {
        TOMLTable(entries: entries.map { entry in
            switch entry.child {
            case .value(let value): (entry.key, value)
            case .table(let table): (entry.key, .table(table.table))
            case .tables(let tables): (entry.key, .array(tables.map { .table($0.table) }))
            }
        })
    }
}

/// TOML's integers (decimal, 0x, 0o, 0b; `_` between digits) and floats (with a fraction
/// and/or an exponent, `inf`, `nan`).
private enum TOMLNumber {
    static func parse(_ token: [UInt8]) -> TOMLValue? {
        var body = token[...]
        let sign = body.first.flatMap { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") ? $0 : nil }
        if sign != nil { body = body.dropFirst() }
        let negative = sign == UInt8(ascii: "-")
        switch String(decoding: body, as: UTF8.self) {
        case "inf": return .float(negative ? -.infinity : .infinity)
        case "nan": return .float(.nan)
        default: break
        }
        if body.count > 2, body.first == UInt8(ascii: "0"), let radix = radix(of: body[body.startIndex + 1]) {
            guard sign == nil, let digits = digits(body.dropFirst(2), radix: radix),
                  let value = Int(digits, radix: radix) else { return nil }
            return .integer(value)
        }
        // [+-] integer part [. fraction] [e [+-] exponent]
        let exponentStart = body.firstIndex { $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
        let mantissa = body[..<(exponentStart ?? body.endIndex)]
        let dot = mantissa.firstIndex(of: UInt8(ascii: "."))
        let integerPart = mantissa[..<(dot ?? mantissa.endIndex)]
        guard let integerDigits = digits(integerPart, radix: 10),
              integerDigits == "0" || !integerDigits.hasPrefix("0") else { return nil }
        var text = (negative ? "-" : "") + integerDigits
        if let dot {
            guard let fraction = digits(mantissa[(dot + 1)...], radix: 10) else { return nil }
            text += "." + fraction
        }
        if let exponentStart {
            var exponent = body[(exponentStart + 1)...]
            var exponentSign = ""
            if let first = exponent.first, first == UInt8(ascii: "+") || first == UInt8(ascii: "-") {
                exponentSign = first == UInt8(ascii: "-") ? "-" : ""
                exponent = exponent.dropFirst()
            }
            guard let exponentDigits = digits(exponent, radix: 10) else { return nil }
            text += "e" + exponentSign + exponentDigits
        }
        if dot == nil && exponentStart == nil {
            return Int(text).map(TOMLValue.integer)
        }
        // Finite as written, so out of range when it does not fit a Double.
        return Double(text).flatMap { $0.isFinite ? .float($0) : nil }
    }

    private static func radix(of byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "x"): 16
        case UInt8(ascii: "o"): 8
        case UInt8(ascii: "b"): 2
        default: nil
        }
    }

    /// The digits without their `_` separators, if every `_` stands between two digits.
    private static func digits(_ text: ArraySlice<UInt8>, radix: Int) -> String? {
        var result = ""
        var previousWasDigit = false
        for byte in text {
            if byte == UInt8(ascii: "_") {
                guard previousWasDigit else { return nil }
                previousWasDigit = false
                continue
            }
            let character = Character(Unicode.Scalar(byte))
            guard character.isASCII, let value = character.hexDigitValue, value < radix else { return nil }
            result.append(character)
            previousWasDigit = true
        }
        return previousWasDigit ? result : nil
    }
}

/// TOML's dates and times (RFC 3339): `1979-05-27T07:32:00.5-07:00`, `1979-05-27 07:32:00Z`,
/// `1979-05-27T07:32:00`, `1979-05-27`, `07:32:00.999`.
private enum TOMLDateTime {
    static func isValid(_ token: [UInt8]) -> Bool {
        var rest = token[...]
        if rest.count >= 10, rest[rest.startIndex + 4] == UInt8(ascii: "-") {
            guard date(rest.prefix(10)) else { return false }
            rest = rest.dropFirst(10)
            guard let separator = rest.first else { return true }
            guard [UInt8(ascii: "T"), UInt8(ascii: "t"), UInt8(ascii: " ")].contains(separator) else { return false }
            rest = rest.dropFirst()
            guard let afterTime = time(rest) else { return false }
            return offset(afterTime)
        }
        return time(rest)?.isEmpty == true
    }

    private static func number(_ bytes: ArraySlice<UInt8>, digits: Int) -> Int? {
        guard bytes.count == digits, bytes.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        return bytes.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
    }

    private static func date(_ bytes: ArraySlice<UInt8>) -> Bool {
        let s = bytes.startIndex
        guard bytes[s + 4] == UInt8(ascii: "-"), bytes[s + 7] == UInt8(ascii: "-"),
              let year = number(bytes[s..<(s + 4)], digits: 4), let month = number(bytes[(s + 5)..<(s + 7)], digits: 2),
              let day = number(bytes[(s + 8)..<(s + 10)], digits: 2), (1...12).contains(month) else { return false }
        let isLeap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = [31, isLeap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        return (1...days).contains(day)
    }

    /// `HH:MM:SS[.fraction]`; returns what follows it.
    private static func time(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        let s = bytes.startIndex
        guard bytes.count >= 8, bytes[s + 2] == UInt8(ascii: ":"), bytes[s + 5] == UInt8(ascii: ":"),
              let hour = number(bytes[s..<(s + 2)], digits: 2), let minute = number(bytes[(s + 3)..<(s + 5)], digits: 2),
              let second = number(bytes[(s + 6)..<(s + 8)], digits: 2), hour < 24, minute < 60, second <= 60 else { return nil }
        var rest = bytes.dropFirst(8)
        if rest.first == UInt8(ascii: ".") {
            rest = rest.dropFirst()
            let digits = rest.prefix { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
            guard !digits.isEmpty else { return nil }
            rest = rest.dropFirst(digits.count)
        }
        return rest
    }

    /// Nothing (a local date-time), `Z`, or `±HH:MM`.
    private static func offset(_ bytes: ArraySlice<UInt8>) -> Bool {
        guard let first = bytes.first else { return true }
        if first == UInt8(ascii: "Z") || first == UInt8(ascii: "z") { return bytes.count == 1 }
        let s = bytes.startIndex
        guard first == UInt8(ascii: "+") || first == UInt8(ascii: "-"), bytes.count == 6, bytes[s + 3] == UInt8(ascii: ":"),
              let hour = number(bytes[(s + 1)..<(s + 3)], digits: 2), let minute = number(bytes[(s + 4)..<(s + 6)], digits: 2)
        else { return false }
        return hour < 24 && minute < 60
    }
}
