import Foundation

/// A JSON value as Wyoming events carry it in `data`: any JSON, since clients may send fields
/// this server does not know (and `info` nests objects in lists).
public enum JSONValue: Sendable, Hashable, Codable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { $1 }))
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        // Whole numbers as integers: Python clients read `1500`, not `1500.0`, as an int timestamp.
        case .number(let value) where value == value.rounded() && abs(value) < 9e15: try container.encode(Int64(value))
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    public var string: String? { if case .string(let value) = self { value } else { nil } }
    public var number: Double? { if case .number(let value) = self { value } else { nil } }
    public var array: [JSONValue]? { if case .array(let value) = self { value } else { nil } }
    public var object: [String: JSONValue]? { if case .object(let value) = self { value } else { nil } }
    public var isNull: Bool { self == .null }

    /// The value as JSON text, cut for a message (`WyomingProtocolError.excerpt`): what a client
    /// sent, as it sent it, never whole in a log line.
    public var excerpt: String {
        WyomingProtocolError.excerpt(String(decoding: WyomingEvent.jsonBytes(self), as: UTF8.self))
    }

    /// A whole number that fits an `Int`, or nil.
    public var integer: Int? {
        guard let number, number == number.rounded(), abs(number) < 9e15 else { return nil }
        return Int(number)
    }
}

/// One Wyoming event: its type, its data (the header's `data` with the extra data block merged
/// over it), and its binary payload (PCM for `audio-chunk`).
public struct WyomingEvent: Sendable, Hashable {
    public var type: String
    public var data: [String: JSONValue]
    public var payload: [UInt8]

    public init(type: String, data: [String: JSONValue] = [:], payload: [UInt8] = []) {
        self.type = type
        self.data = data
        self.payload = payload
    }

    /// The version of the reference implementation (PyPI `wyoming`) whose field names this follows;
    /// written in every header as the reference does.
    public static let protocolVersion = "1.10.2"

    /// The bytes of this event on the wire: a JSON header line, the data as a separate block
    /// (`data_length`, as the reference writes it), then the payload (`payload_length`).
    public func encoded() -> [UInt8] {
        var header: [String: JSONValue] = ["type": .string(type), "version": .string(Self.protocolVersion)]
        var dataBytes: [UInt8] = []
        if !data.isEmpty {
            dataBytes = Self.jsonBytes(.object(data))
            header["data_length"] = .number(Double(dataBytes.count))
        }
        if !payload.isEmpty { header["payload_length"] = .number(Double(payload.count)) }
        return Self.jsonBytes(.object(header)) + [UInt8(ascii: "\n")] + dataBytes + payload
    }

    static func jsonBytes(_ value: JSONValue) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // JSONValue holds only encodable values (finite numbers come from parsing or from us).
        return Array(try! encoder.encode(value))
    }
}
