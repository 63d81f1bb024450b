import Foundation
import HotwordJSON

/// Why a byte stream is not valid Wyoming framing. The connection it came on cannot be trusted
/// to resynchronise (a wrong length shifts every later event), so it is closed.
public enum WyomingProtocolError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No newline within `limit` bytes: the header line is too long (or the stream is not Wyoming).
    case headerTooLong(limit: Int)
    /// The header line or the data block (`part`) is not a JSON object.
    case invalidJSON(part: String, reason: String)
    /// The header line or the data block (`part`) nests objects and arrays deeper than `limit`.
    case nestedTooDeep(part: String, limit: Int)
    /// The header has no string `type`.
    case missingType
    /// `data_length` or `payload_length` is not a whole number ≥ 0.
    case invalidLength(field: String, value: String)
    /// `data_length` or `payload_length` is larger than this server accepts.
    case tooLarge(field: String, length: Int, limit: Int)
    /// The stream ended inside an event: `received` of `expected` bytes of `part`.
    case truncated(part: String, expected: Int, received: Int)

    /// At most this many bytes of what a client sent go into a message (the log, an `error`
    /// event): enough to recognise it, too few for one client to flood the log.
    public static let excerptLimit = 200

    /// `text`, cut to `excerptLimit` bytes (at a character boundary) with "…" when longer.
    static func excerpt(_ text: String) -> String {
        guard text.utf8.count > excerptLimit else { return text }
        var cut = ""
        for character in text {
            guard cut.utf8.count + character.utf8.count <= excerptLimit else { break }
            cut.append(character)
        }
        return cut + "… (\(text.utf8.count) bytes)"
    }

    public var description: String {
        switch self {
        case .headerTooLong(let limit): "header line longer than \(limit) bytes"
        case .invalidJSON(let part, let reason): "\(part) is not a JSON object: \(reason)"
        case .nestedTooDeep(let part, let limit): "\(part) nests objects and arrays more than \(limit) deep (the limit for a Wyoming event)"
        case .missingType: "header has no \"type\" string"
        case .invalidLength(let field, let value): "\(field) \(value) is not a whole number ≥ 0"
        case .tooLarge(let field, let length, let limit): "\(field) \(length) is over the limit of \(limit) bytes"
        case .truncated(let part, let expected, let received):
            "connection ended inside the \(part): \(received) of \(expected) bytes (payload length mismatch)"
        }
    }
}

/// Splits a byte stream into Wyoming events, incrementally: `append` bytes as they arrive, take
/// events with `next()` until it returns nil. Holds at most one incomplete event, and refuses
/// any event larger than its limits, so one connection's memory stays bounded.
public struct WyomingEventParser: Sendable {
    public struct Limits: Sendable, Equatable {
        /// The specification's limit for the JSON header line.
        public var header = 1 << 20
        public var data = 1 << 20
        /// 4 MiB: over 10 s of 48 kHz stereo 32-bit audio in one chunk; clients send 10–100 ms.
        public var payload = 4 << 20
        /// Objects and arrays within each other in the header or data: Wyoming's events nest 3
        /// deep (`info`); decoding recurses per level on a connection thread's 1 MiB stack.
        public var depth = 64

        public init() {}
    }

    public let limits: Limits
    private var buffer: [UInt8] = []
    /// Bytes of `buffer` already consumed; dropped in bulk so consuming is not quadratic.
    private var start = 0
    /// Where the search for the header's newline resumes, so a slow header is scanned once.
    private var scanned = 0
    /// A header already parsed whose data and payload have not all arrived.
    private var pending: Header?

    private struct Header: Sendable {
        var type: String
        var data: [String: JSONValue]
        var dataLength: Int
        var payloadLength: Int
    }

    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Bytes received and not yet returned as events.
    public var bufferedCount: Int { buffer.count - start }

    public mutating func append(_ bytes: some Collection<UInt8>) {
        if start > 0, start >= buffer.count / 2 {
            buffer.removeSubrange(0..<start)
            scanned -= start
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next complete event, or nil when more bytes are needed.
    public mutating func next() throws(WyomingProtocolError) -> WyomingEvent? {
        if pending == nil {
            guard let newline = buffer[max(start, scanned)...].firstIndex(of: UInt8(ascii: "\n")) else {
                scanned = buffer.count
                if buffer.count - start > limits.header { throw .headerTooLong(limit: limits.header) }
                return nil
            }
            guard newline - start <= limits.header else { throw .headerTooLong(limit: limits.header) }
            let header = try parseHeader(buffer[start..<newline])
            pending = header
            start = newline + 1
            scanned = start
            // Room for the whole event at once: grown by doubling, the buffer could hold twice it.
            buffer.reserveCapacity(start + header.dataLength + header.payloadLength)
        }
        guard let header = pending, buffer.count - start >= header.dataLength + header.payloadLength else { return nil }
        var data = header.data
        if header.dataLength > 0 {
            // As the reference: the data block is merged over the header's `data`.
            let extra = try object(buffer[start..<start + header.dataLength], part: "data block")
            data.merge(extra) { $1 }
        }
        let payloadStart = start + header.dataLength
        let payload = Array(buffer[payloadStart..<payloadStart + header.payloadLength])
        start = payloadStart + header.payloadLength
        scanned = start
        pending = nil
        if start == buffer.count {
            // All consumed: a large event's storage goes back, not kept for the connection's life.
            buffer.removeAll(keepingCapacity: buffer.capacity <= 256 * 1024)
            start = 0
            scanned = 0
        }
        return WyomingEvent(type: header.type, data: data, payload: payload)
    }

    /// At the end of the stream: throws if it ended inside an event.
    public func finish() throws(WyomingProtocolError) {
        let remaining = buffer.count - start
        if let header = pending {
            let (part, expected) = remaining < header.dataLength
                ? ("data block", header.dataLength) : ("payload", header.payloadLength)
            let received = part == "payload" ? remaining - header.dataLength : remaining
            throw .truncated(part: part, expected: expected, received: received)
        }
        if remaining > 0 { throw .truncated(part: "header line", expected: remaining + 1, received: remaining) }
    }

    private func parseHeader(_ line: ArraySlice<UInt8>) throws(WyomingProtocolError) -> Header {
        let header = try object(line, part: "header line")
        guard let type = header["type"]?.string else { throw .missingType }
        let data: [String: JSONValue]
        switch header["data"] {
        case nil, .null?: data = [:]
        case .object(let object)?: data = object
        case let other?: throw .invalidJSON(part: "header's data", reason: "\(other) is not an object")
        }
        return Header(type: type, data: data,
                      dataLength: try length("data_length", in: header, limit: limits.data),
                      payloadLength: try length("payload_length", in: header, limit: limits.payload))
    }

    private func length(_ field: String, in header: [String: JSONValue], limit: Int) throws(WyomingProtocolError) -> Int {
        guard let value = header[field], !value.isNull else { return 0 }
        guard let length = value.integer, length >= 0 else {
            throw .invalidLength(field: field, value: value.excerpt)
        }
        guard length <= limit else { throw .tooLarge(field: field, length: length, limit: limit) }
        return length
    }

    private func object(_ bytes: ArraySlice<UInt8>, part: String) throws(WyomingProtocolError) -> [String: JSONValue] {
        guard JSONNesting.firstOffset(deeperThan: limits.depth, in: bytes) == nil else {
            throw .nestedTooDeep(part: part, limit: limits.depth)
        }
        let value: JSONValue
        do {
            value = try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
        } catch {
            throw .invalidJSON(part: part, reason: WyomingProtocolError.excerpt(JSONDecodingFailure.reason(error, in: bytes)))
        }
        guard let object = value.object else { throw .invalidJSON(part: part, reason: "not an object") }
        return object
    }
}
