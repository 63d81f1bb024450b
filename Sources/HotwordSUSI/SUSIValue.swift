import Foundation
import HotwordJSON

/// A JSON value from a SUSI reply, object members kept in the order the server sent them.
///
/// SUSI's `table` action lists its columns as a JSON object whose member order is the column
/// order; Foundation's JSON decoders lose that order, so replies are read with this type.
public enum SUSIValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([SUSIValue])
    case object([Member])

    public struct Member: Sendable, Equatable {
        public var key: String
        public var value: SUSIValue

        public init(_ key: String, _ value: SUSIValue) {
            self.key = key
            self.value = value
        }
    }

    /// The first member named `key` of an object.
    public subscript(key: String) -> SUSIValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    public var members: [Member]? {
        if case .object(let members) = self { members } else { nil }
    }

    public var array: [SUSIValue]? {
        if case .array(let values) = self { values } else { nil }
    }

    /// A string, or a number or bool spelled out; nil for null, arrays and objects.
    public var string: String? {
        switch self {
        case .string(let text): text
        case .number(let number): SUSIValue.format(number)
        case .bool(let flag): String(flag)
        case .null, .array, .object: nil
        }
    }

    /// A finite number, or a string holding one (servers are not consistent about quoting
    /// numbers). "nan", "inf" and numbers beyond Double's range count as no number: no SUSI
    /// field means them, and NaN would trap wherever it is made an integer.
    public var double: Double? {
        let number: Double? = switch self {
        case .number(let number): number
        case .string(let text): Double(text.trimmingCharacters(in: .whitespaces))
        default: nil
        }
        return number.flatMap { $0.isFinite ? $0 : nil }
    }

    /// `double`, when it is a whole number.
    public var int: Int? {
        guard let double, double.rounded() == double, abs(double) < 1e15 else { return nil }
        return Int(double)
    }

    public var bool: Bool? {
        switch self {
        case .bool(let flag): flag
        case .string(let text): Bool(text.lowercased())
        default: nil
        }
    }

    /// Text for a table cell: strings as they are, numbers without a needless `.0`, nothing
    /// for null, compact JSON for arrays and objects.
    public var text: String {
        switch self {
        case .null: ""
        case .bool, .number, .string: string ?? ""
        case .array(let values): "[" + values.map(\.jsonText).joined(separator: ",") + "]"
        case .object(let members):
            "{" + members.map { SUSIValue.string($0.key).jsonText + ":" + $0.value.jsonText }.joined(separator: ",") + "}"
        }
    }

    private var jsonText: String {
        guard case .string(let text) = self else { return self == .null ? "null" : text }
        return JSONText.quoted(text)
    }

    private static func format(_ number: Double) -> String {
        number.rounded() == number && abs(number) < 1e15 ? String(Int(number)) : String(number)
    }

    /// Parses JSON text (RFC 8259, leniently: a leading byte-order mark and raw control
    /// characters inside strings are accepted).
    public static func parse(_ data: Data) throws(SUSIValueParseError) -> SUSIValue {
        var parser = Parser(bytes: [UInt8](data))
        return try parser.parseDocument()
    }

    /// A recursive-descent parser over UTF-8 bytes, with a nesting limit so hostile input
    /// cannot exhaust the stack.
    private struct Parser {
        let bytes: [UInt8]
        var index = 0
        var depth = 0
        static let maximumDepth = 256

        init(bytes: [UInt8]) {
            self.bytes = bytes
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        }

        mutating func parseDocument() throws(SUSIValueParseError) -> SUSIValue {
            let value = try parseValue()
            skipWhitespace()
            guard index == bytes.count else { throw failure("unexpected text after the JSON value") }
            return value
        }

        private mutating func parseValue() throws(SUSIValueParseError) -> SUSIValue {
            skipWhitespace()
            guard index < bytes.count else { throw failure("unexpected end of input") }
            switch bytes[index] {
            case UInt8(ascii: "{"): return try parseObject()
            case UInt8(ascii: "["): return try parseArray()
            case UInt8(ascii: "\""): return .string(try parseString())
            case UInt8(ascii: "t"): return try parseLiteral("true", .bool(true))
            case UInt8(ascii: "f"): return try parseLiteral("false", .bool(false))
            case UInt8(ascii: "n"): return try parseLiteral("null", .null)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
            default: throw failure("expected a JSON value")
            }
        }

        private mutating func parseObject() throws(SUSIValueParseError) -> SUSIValue {
            try enter()
            defer { depth -= 1 }
            index += 1
            var members: [Member] = []
            skipWhitespace()
            if consume(UInt8(ascii: "}")) { return .object(members) }
            repeat {
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw failure("expected a member name") }
                let key = try parseString()
                skipWhitespace()
                guard consume(UInt8(ascii: ":")) else { throw failure("expected ':' after a member name") }
                members.append(Member(key, try parseValue()))
                skipWhitespace()
            } while consume(UInt8(ascii: ","))
            guard consume(UInt8(ascii: "}")) else { throw failure("expected ',' or '}' in an object") }
            return .object(members)
        }

        private mutating func parseArray() throws(SUSIValueParseError) -> SUSIValue {
            try enter()
            defer { depth -= 1 }
            index += 1
            var values: [SUSIValue] = []
            skipWhitespace()
            if consume(UInt8(ascii: "]")) { return .array(values) }
            repeat {
                values.append(try parseValue())
                skipWhitespace()
            } while consume(UInt8(ascii: ","))
            guard consume(UInt8(ascii: "]")) else { throw failure("expected ',' or ']' in an array") }
            return .array(values)
        }

        private mutating func parseString() throws(SUSIValueParseError) -> String {
            index += 1  // the opening quote
            var utf8: [UInt8] = []
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return String(decoding: utf8, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard index < bytes.count else { break }
                    let escape = bytes[index]
                    index += 1
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
                    case UInt8(ascii: "b"): utf8.append(0x08)
                    case UInt8(ascii: "f"): utf8.append(0x0C)
                    case UInt8(ascii: "n"): utf8.append(0x0A)
                    case UInt8(ascii: "r"): utf8.append(0x0D)
                    case UInt8(ascii: "t"): utf8.append(0x09)
                    case UInt8(ascii: "u"): utf8 += Array(String(try parseUnicodeEscape()).utf8)
                    default: throw failure("invalid escape in a string")
                    }
                default:
                    utf8.append(byte)
                }
            }
            throw failure("unterminated string")
        }

        /// After `\u`: four hex digits, or a surrogate pair written as two escapes.
        private mutating func parseUnicodeEscape() throws(SUSIValueParseError) -> Character {
            let high = try parseHex4()
            if (0xD800..<0xDC00).contains(high), bytes[index...].starts(with: Array("\\u".utf8)) {
                let saved = index
                index += 2
                let low = try parseHex4()
                if (0xDC00..<0xE000).contains(low),
                   let scalar = Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)) {
                    return Character(scalar)
                }
                index = saved
            }
            return Unicode.Scalar(high).map(Character.init) ?? "\u{FFFD}"
        }

        private mutating func parseHex4() throws(SUSIValueParseError) -> UInt32 {
            guard index + 4 <= bytes.count,
                  let value = UInt32(String(decoding: bytes[index..<(index + 4)], as: UTF8.self), radix: 16)
            else { throw failure("invalid \\u escape") }
            index += 4
            return value
        }

        private mutating func parseNumber() throws(SUSIValueParseError) -> SUSIValue {
            let start = index
            while index < bytes.count, Self.numberBytes.contains(bytes[index]) { index += 1 }
            guard let number = Double(String(decoding: bytes[start..<index], as: UTF8.self)) else {
                index = start
                throw failure("invalid number")
            }
            return .number(number)
        }

        private static let numberBytes = Set("+-0123456789.eE".utf8)

        private mutating func parseLiteral(_ word: String, _ value: SUSIValue) throws(SUSIValueParseError) -> SUSIValue {
            guard bytes[index...].starts(with: word.utf8) else { throw failure("expected a JSON value") }
            index += word.utf8.count
            return value
        }

        private mutating func enter() throws(SUSIValueParseError) {
            depth += 1
            guard depth <= Self.maximumDepth else { throw failure("nested more than \(Self.maximumDepth) levels deep") }
        }

        private mutating func skipWhitespace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        private mutating func consume(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        private func failure(_ reason: String) -> SUSIValueParseError {
            SUSIValueParseError(offset: index, reason: reason)
        }
    }
}

/// Where and why JSON text could not be read.
public struct SUSIValueParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Byte offset into the text.
    public var offset: Int
    public var reason: String

    public var description: String { "invalid JSON at byte \(offset): \(reason)" }
}

extension SUSIValue {
    /// The JSON object a SUSI endpoint at `url` answered with. An HTML page (a proxy's, say) is
    /// `notJSON`, so the error shows what came instead of a parser position.
    static func object(from body: Data, url: String) throws(SUSIError) -> SUSIValue {
        let firstByte = body.first { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }
        guard firstByte == UInt8(ascii: "{") || firstByte == UInt8(ascii: "[") else {
            throw .notJSON(url: url, excerpt: HTTPResponse.summary(of: body))
        }
        let root: SUSIValue
        do { root = try SUSIValue.parse(body) } catch { throw .malformedReply(url: url, reason: error.description) }
        guard root.members != nil else { throw .malformedReply(url: url, reason: "expected a JSON object") }
        return root
    }

    /// `object(from:url:)`, unless the server said `"accepted": false`: SUSI's soft failures at HTTP 200.
    static func acceptedObject(from body: Data, url: String) throws(SUSIError) -> SUSIValue {
        let root = try object(from: body, url: url)
        if root["accepted"]?.bool == false {
            throw .notAccepted(url: url, message: SUSIRenderer.cleaned(root["message"]?.string ?? "no message", limit: 200))
        }
        return root
    }
}
