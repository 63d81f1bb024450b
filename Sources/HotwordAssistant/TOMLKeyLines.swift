/// Where each key of a TOML document is written: the 1-based line of every table header and
/// key, by full key path. TOMLKit (toml++) keeps no source positions for keys, and a message
/// about a bad value needs one; this scanner reads only the structure of a document TOMLKit has
/// already accepted as valid: headers, keys, and enough of each value to skip it (strings of all
/// four kinds, arrays and inline tables across lines, comments).
struct TOMLKeyLines {
    private var lines: [[String]: Int] = [:]

    init(_ text: String) {
        var scanner = Scanner(bytes: Array(text.utf8))
        scanner.document { path, line in
            if lines[path] == nil { lines[path] = line }
        }
    }

    /// The line a key path (`["wake", "keywords", "hey susi", "sensitivity"]`) is first written on.
    func line(of path: [String]) -> Int? {
        lines[path]
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0
        var line = 1

        init(bytes: [UInt8]) {
            self.bytes = bytes
        }

        private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        private func peek(_ offset: Int) -> UInt8? {
            index + offset < bytes.count ? bytes[index + offset] : nil
        }

        private mutating func advance() {
            if bytes[index] == UInt8(ascii: "\n") { line += 1 }
            index += 1
        }

        mutating func document(_ found: ([String], Int) -> Void) {
            var table: [String] = []
            while current != nil {
                skipBlank(newlines: true)
                guard let byte = current else { return }
                if byte == UInt8(ascii: "[") {
                    advance()
                    let isArray = current == UInt8(ascii: "[")
                    if isArray { advance() }
                    let headerLine = line
                    table = keyPath()
                    found(table, headerLine)
                    while let byte = current, byte != UInt8(ascii: "\n") { advance() }  // `]` or `]]`, a comment
                } else {
                    keyValue(in: table, found)
                }
            }
        }

        /// `key = value`, reporting the key (and the keys of an inline-table value).
        private mutating func keyValue(in table: [String], _ found: ([String], Int) -> Void) {
            let keyLine = line
            let path = table + keyPath()
            found(path, keyLine)
            skipBlank(newlines: false)
            if current == UInt8(ascii: "=") { advance() }
            skipBlank(newlines: false)
            value(at: path, found)
        }

        /// A dotted key (`a."b c".d`), up to `=` or `]`.
        private mutating func keyPath() -> [String] {
            var components: [String] = []
            while true {
                skipBlank(newlines: false)
                guard let byte = current else { return components }
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                    components.append(quoted(byte))
                } else {
                    let start = index
                    while let byte = current, Self.isBareKeyCharacter(byte) { advance() }
                    components.append(String(decoding: bytes[start..<index], as: UTF8.self))
                }
                skipBlank(newlines: false)
                guard current == UInt8(ascii: ".") else { return components }
                advance()
            }
        }

        private mutating func value(at path: [String], _ found: ([String], Int) -> Void) {
            guard let byte = current else { return }
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                _ = quoted(byte)
            case UInt8(ascii: "["):
                advance()
                while let byte = current, byte != UInt8(ascii: "]") {
                    if byte == UInt8(ascii: ",") {
                        advance()
                    } else {
                        skipBlank(newlines: true)
                        if current != UInt8(ascii: "]") && current != UInt8(ascii: ",") { value(at: path, found) }
                        skipBlank(newlines: true)
                    }
                }
                if current != nil { advance() }
            case UInt8(ascii: "{"):
                advance()
                while let byte = current, byte != UInt8(ascii: "}") {
                    if byte == UInt8(ascii: ",") {
                        advance()
                    } else {
                        skipBlank(newlines: false)
                        if current != UInt8(ascii: "}") { keyValue(in: path, found) }
                        skipBlank(newlines: false)
                    }
                }
                if current != nil { advance() }
            default:
                // A number, boolean or date: up to the next separator.
                while let byte = current, !Self.endsScalar(byte) { advance() }
            }
        }

        /// A basic or literal string, single- or multi-line, starting at its quote; returns its
        /// content (escapes kept as written, which is enough for key names).
        private mutating func quoted(_ quote: UInt8) -> String {
            let isMultiLine = peek(1) == quote && peek(2) == quote
            let delimiterLength = isMultiLine ? 3 : 1
            for _ in 0..<delimiterLength { advance() }
            let start = index
            while let byte = current {
                if byte == UInt8(ascii: "\\") && quote == UInt8(ascii: "\"") {
                    advance()
                    if current != nil { advance() }
                    continue
                }
                if byte == quote && !isMultiLine {
                    let content = String(decoding: bytes[start..<index], as: UTF8.self)
                    advance()
                    return content
                }
                if byte == quote && peek(1) == quote && peek(2) == quote {
                    // Up to two more quotes before the closing three belong to the content.
                    var run = 3
                    while peek(run) == quote { run += 1 }
                    let content = String(decoding: bytes[start..<(index + run - 3)], as: UTF8.self)
                    for _ in 0..<run { advance() }
                    return content
                }
                if byte == UInt8(ascii: "\n") && !isMultiLine { break }
                advance()
            }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        /// Spaces, tabs, comments, and with `newlines` also line breaks.
        private mutating func skipBlank(newlines: Bool) {
            while let byte = current {
                if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r") {
                    advance()
                } else if byte == UInt8(ascii: "#") {
                    while let byte = current, byte != UInt8(ascii: "\n") { advance() }
                } else if newlines && byte == UInt8(ascii: "\n") {
                    advance()
                } else {
                    return
                }
            }
        }

        private static func isBareKeyCharacter(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }

        private static func endsScalar(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: ",") || byte == UInt8(ascii: "]") || byte == UInt8(ascii: "}")
                || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "#")
        }
    }
}
