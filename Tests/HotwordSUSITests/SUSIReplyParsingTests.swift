import Foundation
import HotwordSUSI
import HotwordTestSupport
import Testing

@Suite("SUSI reply parsing")
struct SUSIReplyParsingTests {
    private func parse(_ json: String) throws(SUSIError) -> SUSIReply {
        try SUSIReply(json: Data(json.utf8), url: "test")
    }

    /// A reply whose first answer has `actions` (JSON text) and `data`.
    private func reply(actions: [String], data: String = "[]") throws -> SUSIReply {
        try parse(#"{"query": "q", "answers": [{"data": \#(data), "actions": [\#(actions.joined(separator: ","))]}]}"#)
    }

    @Test func everyActionTypeFromTheServerIsRead() async throws {
        let server = try SUSITestServer(fallback: .everyAction)
        defer { server.shutdown() }
        let reply = try await makeClient(server).ask("everything")
        let expected: [SUSIAction] = [
            .answer(SUSIAnswer(expression: "Hallo!", language: "de")),
            .table(SUSITable(columns: [.init(key: "ingredient", header: "Ingredient"), .init(key: "percent", header: "Share")],
                             count: nil)),
            .rss(SUSIFeed(titleKey: "ingredient", descriptionKey: "percent", linkKey: "ingredient", count: 1)),
            .webSearch(query: "swift concurrency", count: 3),
            .anchor(link: "https://susi.ai", text: "Visit SUSI"),
            .map(latitude: 52.52, longitude: 13.405, zoom: 13),
            .audioPlay(SUSIMedia(identifier: "dQw4w9WgXcQ", identifierType: "youtube")),
            .videoPlay(SUSIMedia(identifier: "https://example.org/clip.mp4", identifierType: "url")),
            .audioVolume(percent: 70),
            .timerSet(Date(timeIntervalSince1970: 1_700_000_000)),
            .timerReset,
            .playback(.stop), .playback(.pause), .playback(.resume), .playback(.restart),
            .playback(.next), .playback(.previous), .playback(.shuffle),
            .pieChart(SUSIPieChart(total: 100, key: "ingredient", value: "percent", unit: "%")),
            .imageShow(url: "https://example.org/cat.jpg"),
            .unknown(type: "hologram"),
        ]
        #expect(reply.actions == expected)
        #expect(reply.data.count == 2)
        #expect(reply.data[0]["ingredient"] == .string("flour"))
        #expect(reply.totalCount == 2)
        #expect(reply.skills == ["/susi_server/conf/susi/en_0090_fail.json"])
    }

    @Test func tableColumnsKeepTheServersOrder() throws {
        let parsed = try reply(actions: [#"{"type": "table", "columns": {"zeta": "Z", "alpha": "A", "mid": "M", "beta": "B"}}"#])
        guard case .table(let table) = parsed.actions.first else { Issue.record("\(parsed.actions)"); return }
        #expect(table.columns.map(\.key) == ["zeta", "alpha", "mid", "beta"])
        #expect(table.columns.map(\.header) == ["Z", "A", "M", "B"])
        #expect(table.count == nil)
    }

    @Test func tableWithoutColumnsShowsTheFirstRowsKeys() throws {
        let parsed = try reply(actions: [#"{"type": "table", "count": 2}"#], data: #"[{"city": "Berlin", "temp": 3}]"#)
        #expect(parsed.actions == [.table(SUSITable(columns: [.init(key: "city", header: "city"), .init(key: "temp", header: "temp")],
                                                    count: 2))])
        let empty = try reply(actions: [#"{"type": "table"}"#])
        #expect(empty.actions == [.incomplete(type: "table", missingField: "columns")])
    }

    @Test func oddlyTypedFieldsAreReadTolerantly() throws {
        let parsed = try reply(actions: [
            #"{"type": "answer", "expression": "Later", "plan_delay": "300000", "plan_date": "2018-05-14T13:27:18Z", "extra": [1, {"x": null}]}"#,
            #"{"type": "rss", "count": "-1"}"#,
            #"{"type": "audio_volume", "volume": 150}"#,
            #"{"type": "timer_set", "time": 1700000000000}"#,
            #"{"type": "video_play", "identifier": "https://example.org/v.webm"}"#,
        ])
        #expect(parsed.actions == [
            .answer(SUSIAnswer(expression: "Later", planDelay: .seconds(300),
                               planDate: Date(timeIntervalSince1970: 1_526_304_438))),
            .rss(SUSIFeed(titleKey: "title", descriptionKey: "description", linkKey: "link", count: nil)),
            .audioVolume(percent: 100),
            .timerSet(Date(timeIntervalSince1970: 1_700_000_000)),
            .videoPlay(SUSIMedia(identifier: "https://example.org/v.webm", identifierType: "url")),
        ])
    }

    @Test func actionsMissingRequiredFieldsAreKeptAsIncomplete() throws {
        let parsed = try reply(actions: [
            #"{"type": "answer"}"#, #"{"type": "map", "latitude": 1}"#, #"{"type": "anchor", "text": "x"}"#,
            #"{"type": "piechart", "key": "k"}"#, #"{"expression": "no type"}"#, #""just a string""#,
        ])
        #expect(parsed.actions == [
            .incomplete(type: "answer", missingField: "expression"),
            .incomplete(type: "map", missingField: "longitude"),
            .incomplete(type: "anchor", missingField: "link"),
            .incomplete(type: "piechart", missingField: "value"),
            .incomplete(type: "", missingField: "type"),
            .incomplete(type: "", missingField: "type"),
        ])
    }

    /// Found by fuzzing: a volume of "nan" trapped converting NaN to an integer.
    @Test func numbersThatAreNotFiniteAreMissing() throws {
        let parsed = try reply(actions: [
            #"{"type": "audio_volume", "volume": "nan"}"#,
            #"{"type": "audio_volume", "volume": "-inf"}"#,
            #"{"type": "audio_volume", "volume": 1e400}"#,
            #"{"type": "timer_set", "time": "NaN"}"#,
            #"{"type": "map", "latitude": "infinity", "longitude": 13.4}"#,
            #"{"type": "audio_volume", "volume": " 55.4 "}"#,
        ])
        #expect(parsed.actions == [
            .incomplete(type: "audio_volume", missingField: "volume"),
            .incomplete(type: "audio_volume", missingField: "volume"),
            .incomplete(type: "audio_volume", missingField: "volume"),
            .incomplete(type: "timer_set", missingField: "time"),
            .incomplete(type: "map", missingField: "latitude"),
            .audioVolume(percent: 55),
        ])
        #expect(SUSIRenderer(verbose: true).steps(for: parsed).isEmpty == false)
    }

    @Test func bodiesThatAreNotSUSIRepliesGiveTypedErrors() {
        #expect(throws: SUSIError.notJSON(url: "test", excerpt: "Error 500 Server Error")) {
            try parse("<html><title>Error 500 Server Error</title></html>")
        }
        #expect(throws: SUSIError.notJSON(url: "test", excerpt: "")) { try parse("") }
        #expect(throws: SUSIError.malformedReply(url: "test", reason: "expected a JSON object")) { try parse("[1, 2]") }
        #expect(throws: SUSIError.malformedReply(url: "test", reason: "no \"answers\" list")) { try parse(#"{"query": "x"}"#) }
        #expect(throws: SUSIError.malformedReply(url: "test", reason: "the first answer is not a JSON object")) {
            try parse(#"{"answers": [42]}"#)
        }
        #expect(throws: SUSIError.noAnswer(query: "x")) { try parse(#"{"query": "x", "answers": []}"#) }
        #expect(throws: SUSIError.malformedReply(url: "test", reason: "invalid JSON at byte 15: expected ',' or '}' in an object")) {
            try parse(#"{"answers": [] "#)
        }
    }

    @Test func jsonValuesAreParsedExactly() throws {
        let value = try SUSIValue.parse(Data(#"""
            {"s": "a\"b\\c\/d\n\u00e9\ud83d\ude00", "n": -12.5e1, "i": 42, "t": true, "f": false, "z": null,
             "a": [], "o": {}, "raw": "tab	here"}
            """#.utf8))
        #expect(value["s"] == .string("a\"b\\c/d\né😀"))
        #expect(value["n"] == .number(-125))
        #expect(value["i"]?.int == 42)
        #expect(value["i"]?.text == "42")
        #expect(value["n"]?.text == "-125")
        #expect(SUSIValue.number(1.09302).text == "1.09302")
        #expect(value["t"] == .bool(true) && value["f"] == .bool(false) && value["z"] == .null)
        #expect(value["a"] == .array([]) && value["o"] == .object([]))
        #expect(value["raw"] == .string("tab\there"))
        #expect(value.members?.map(\.key) == ["s", "n", "i", "t", "f", "z", "a", "o", "raw"])
        #expect(SUSIValue.object([.init("k", .array([.number(1), .string("x\"y"), .null]))]).text == #"{"k":[1,"x\"y",null]}"#)
    }

    @Test func hostileJSONIsRejectedWithoutCrashing() {
        let deep = Data((String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)).utf8)
        #expect(throws: SUSIValueParseError.self) { try SUSIValue.parse(deep) }
        for text in ["{", "[1,", #"{"a" 1}"#, #""\u12"#, "tru", "01x", "1 2", #""abc"#, "{\"a\":}", "-"] {
            #expect(throws: SUSIValueParseError.self, "\(text)") { try SUSIValue.parse(Data(text.utf8)) }
        }
    }
}
