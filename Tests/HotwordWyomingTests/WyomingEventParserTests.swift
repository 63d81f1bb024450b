import Foundation
import HotwordWyoming
import Testing

/// The framing parser, from byte arrays: what the reference (PyPI `wyoming` 1.10.2) writes and
/// accepts, and everything a malformed or hostile connection might send.
@Suite struct WyomingEventParserTests {
    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// All events of `stream`, fed `step` bytes at a time.
    private func events(_ stream: [UInt8], step: Int = .max, limits: WyomingEventParser.Limits = .init()) throws -> [WyomingEvent] {
        var parser = WyomingEventParser(limits: limits)
        var found: [WyomingEvent] = []
        var offset = 0
        while offset < stream.count {
            let end = offset + min(step, stream.count - offset)
            parser.append(stream[offset..<end])
            offset = end
            while let event = try parser.next() { found.append(event) }
        }
        try parser.finish()
        return found
    }

    @Test func theDataBlockIsMergedOverTheHeadersDataAndThePayloadFollows() throws {
        // As the reference writes an audio chunk: data in its own block, then the PCM.
        let data = #"{"rate": 16000, "width": 2, "channels": 1, "timestamp": 40}"#
        let header = #"{"type": "audio-chunk", "data": {"rate": 8000, "extra": "kept"}, "version": "1.10.2", "data_length": \#(data.utf8.count), "payload_length": 4}"#
        let stream = bytes(header + "\n" + data) + [1, 2, 3, 4]
        for step in [1, 3, 7, stream.count] {
            let parsed = try events(stream, step: step)
            #expect(parsed == [WyomingEvent(type: "audio-chunk", data: [
                "rate": 16000, "width": 2, "channels": 1, "timestamp": 40, "extra": "kept",
            ], payload: [1, 2, 3, 4])], "fed \(step) bytes at a time")
        }
    }

    @Test func severalEventsInOneReadAndEventsWithoutData() throws {
        let stream = bytes("{\"type\": \"describe\"}\n{\"type\": \"detect\", \"data\": {\"names\": [\"computer\"]}}\n{\"type\": \"audio-stop\", \"data\": null, \"payload_length\": null}\n")
        #expect(try events(stream) == [
            WyomingEvent(type: "describe"),
            WyomingEvent(type: "detect", data: ["names": ["computer"]]),
            WyomingEvent(type: "audio-stop"),
        ])
    }

    @Test func encodedEventsAreWhatTheReferenceWritesAndParseBack() throws {
        let event = WyomingEvent(type: "detection", data: ["name": "computer", "timestamp": 1875, "speaker": .null])
        let encoded = event.encoded()
        let newline = try #require(encoded.firstIndex(of: UInt8(ascii: "\n")))
        let header = try JSONSerialization.jsonObject(with: Data(encoded[..<newline])) as? [String: Any]
        #expect(header?["type"] as? String == "detection")
        #expect(header?["version"] as? String == WyomingEvent.protocolVersion)
        #expect(header?["data_length"] as? Int == encoded.count - newline - 1)
        #expect(header?["payload_length"] == nil)
        // Whole numbers stay integers: the reference's Detection.timestamp is an int.
        #expect(String(decoding: encoded[(newline + 1)...], as: UTF8.self) == #"{"name":"computer","speaker":null,"timestamp":1875}"#)
        let chunk = WyomingEvent(type: "audio-chunk", data: ["rate": 16000], payload: [0, 1, 255])
        #expect(try events(event.encoded() + chunk.encoded()) == [event, chunk])
    }

    @Test func aHeaderLineOverOneMebibyteIsRefusedBeforeItsEnd() throws {
        var parser = WyomingEventParser()
        let limit = parser.limits.header
        #expect(limit == 1 << 20)
        parser.append(bytes("{\"type\": \"describe\", \"x\": \"") + [UInt8](repeating: UInt8(ascii: "a"), count: limit))
        #expect(throws: WyomingProtocolError.headerTooLong(limit: limit)) { try parser.next() }
        // Just under the limit is fine.
        var fine = WyomingEventParser()
        let padding = String(repeating: "a", count: limit - 40)
        fine.append(bytes("{\"type\": \"describe\", \"x\": \"\(padding)\"}\n"))
        #expect(try fine.next()?.type == "describe")
    }

    @Test func badJSONAndBadFieldsAreErrorsNamingThePart() {
        func error(_ text: String) -> WyomingProtocolError? {
            do { _ = try events(bytes(text)) } catch let error as WyomingProtocolError { return error } catch { return nil }
            return nil
        }
        guard case .invalidJSON(part: "header line", _)? = error("not json\n") else {
            Issue.record("not JSON: \(String(describing: error("not json\n")))")
            return
        }
        #expect(error("[1, 2]\n") == .invalidJSON(part: "header line", reason: "not an object"))
        #expect(error("{\"data\": {}}\n") == .missingType)
        #expect(error("{\"type\": 7}\n") == .missingType)
        #expect(error("{\"type\": \"x\", \"data\": [1]}\n").map { "\($0)" }?.contains("header's data") == true)
        #expect(error("{\"type\": \"x\", \"payload_length\": -1}\n") == .invalidLength(field: "payload_length", value: "-1"))
        #expect(error("{\"type\": \"x\", \"data_length\": 1.5}\n") == .invalidLength(field: "data_length", value: "1.5"))
        #expect(error("{\"type\": \"x\", \"payload_length\": 99999999}\n") == .tooLarge(field: "payload_length", length: 99_999_999, limit: 4 << 20))
        #expect(error("{\"type\": \"x\", \"data_length\": 2}\n[]") == .invalidJSON(part: "data block", reason: "not an object"))
        // Foundation calls both "not valid JSON"; the error says what is wrong.
        #expect(error("{\"type\": \"x\", \"data\": {\"a\": 1e400}}\n") == .invalidJSON(part: "header line", reason: "the number 1e400 is out of range"))
        var invalidUTF8 = WyomingEventParser()
        invalidUTF8.append(bytes("{\"type\": \"") + [0xFF, 0xFE] + bytes("\"}\n"))
        #expect(throws: WyomingProtocolError.invalidJSON(part: "header line", reason: "not valid UTF-8 (at byte 10)")) { try invalidUTF8.next() }
    }

    @Test func aStreamEndingInsideAnEventIsAPayloadLengthMismatch() throws {
        var parser = WyomingEventParser()
        parser.append(bytes("{\"type\": \"audio-chunk\", \"payload_length\": 10}\n") + [1, 2, 3])
        #expect(try parser.next() == nil)
        #expect(throws: WyomingProtocolError.truncated(part: "payload", expected: 10, received: 3)) { try parser.finish() }
        var data = WyomingEventParser()
        data.append(bytes("{\"type\": \"x\", \"data_length\": 20, \"payload_length\": 10}\n{\"a\""))
        #expect(try data.next() == nil)
        #expect(throws: WyomingProtocolError.truncated(part: "data block", expected: 20, received: 4)) { try data.finish() }
        var header = WyomingEventParser()
        header.append(bytes("{\"type\""))
        #expect(throws: WyomingProtocolError.self) { try header.finish() }
    }

    @Test func deeplyNestedJSONIsAnErrorNotACrash() {
        var parser = WyomingEventParser()
        parser.append(bytes("{\"type\": \"x\", \"data\": {\"a\": " + String(repeating: "[", count: 100_000) + "}}\n"))
        #expect(throws: WyomingProtocolError.self) { try parser.next() }
    }

    @Test func nestingPastTheDepthLimitIsRefusedBeforeDecoding() throws {
        func nested(_ depth: Int) -> String { String(repeating: "{\"a\": ", count: depth) + "1" + String(repeating: "}", count: depth) }
        // The header's own object is one level: data at 63 more is at the limit of 64.
        #expect(try events(bytes("{\"type\": \"ping\", \"data\": \(nested(63))}\n")).count == 1)
        #expect(throws: WyomingProtocolError.nestedTooDeep(part: "header line", limit: 64)) {
            try events(bytes("{\"type\": \"ping\", \"data\": \(nested(64))}\n"))
        }
        let block = nested(65)
        #expect(throws: WyomingProtocolError.nestedTooDeep(part: "data block", limit: 64)) {
            try events(bytes("{\"type\": \"ping\", \"data_length\": \(block.utf8.count)}\n" + block))
        }
        // Brackets inside strings are text, not nesting.
        #expect(try events(bytes("{\"type\": \"ping\", \"data\": {\"text\": \"\(String(repeating: "[{\\\"", count: 200))\"}}\n")).count == 1)
    }

    @Test func clientInputInAnErrorIsCutToAFewHundredBytes() {
        let huge = String(repeating: "A", count: 512 * 1024)
        var parser = WyomingEventParser()
        parser.append(bytes("{\"type\": \"x\", \"data_length\": \"\(huge)\"}\n"))
        do {
            _ = try parser.next()
            Issue.record("a string as data_length was accepted")
        } catch {
            #expect("\(error)".utf8.count < 400, "\("\(error)".prefix(300))")
            #expect("\(error)".hasPrefix("data_length \"AAAA"))
        }
    }

    @Test func memoryStaysBoundedOverALongStream() throws {
        var parser = WyomingEventParser()
        let chunk = WyomingEvent(type: "audio-chunk", data: ["rate": 16000, "width": 2, "channels": 1], payload: [UInt8](repeating: 7, count: 640)).encoded()
        for _ in 0..<2_000 {
            parser.append(chunk)
            #expect(try parser.next()?.payload.count == 640)
        }
        #expect(parser.bufferedCount == 0)
    }
}
