import Foundation
import HotwordSUSI
import HotwordTestSupport
import Testing

@Suite("SUSIRenderer")
struct SUSIRendererTests {
    /// The steps for the reply the test server gives for `reply`.
    private func steps(for reply: SUSITestServer.Reply, renderer: SUSIRenderer = SUSIRenderer()) async throws -> [SUSIStep] {
        let server = try SUSITestServer(fallback: reply)
        defer { server.shutdown() }
        return renderer.steps(for: try await makeClient(server).ask("question"))
    }

    @Test func answerIsPrintedAndSpoken() async throws {
        #expect(try await steps(for: .answer("Hi! I'm SUSI")) == [
            .print("SUSI: Hi! I'm SUSI"), .speak("Hi! I'm SUSI", language: "en"),
        ])
    }

    @Test func tableIsPrintedWholeInAlignedColumnsAndItsFirstRowsSpoken() async throws {
        let table = """
            Valuta   Quota
            -------  -------
            EUR/USD  1.09302
            USD/JPY  113.326
            GBP/USD  1.27564
            """
        #expect(try await steps(for: .table) == [
            .print("SUSI: Here is a currency rate table:"), .speak("Here is a currency rate table:", language: "en"),
            .print(table), .speak("EUR/USD, 1.09302. USD/JPY, 113.326. GBP/USD, 1.27564.", language: nil),
        ])
        let shortSummary = try await steps(for: .table, renderer: SUSIRenderer(spokenItems: 2))
        #expect(shortSummary.last == .speak("EUR/USD, 1.09302. USD/JPY, 113.326. And 1 more.", language: nil))
    }

    @Test func columnsWidenToTheirLongestCell() throws {
        let reply = try SUSIReply(json: Data(#"""
            {"query": "q", "answers": [{"data": [{"n": "Zoë", "v": 7}, {"n": "x", "v": 123456}, {"n": "longer name"}],
             "actions": [{"type": "table", "columns": {"n": "Name", "v": "Value"}}]}]}
            """#.utf8), url: "test")
        #expect(SUSIRenderer().steps(for: reply).first == .print("""
            Name         Value
            -----------  ------
            Zoë          7
            x            123456
            longer name
            """))
    }

    /// A table of 1,000 rows of 1,000-character cells was printed whole (1.2 GB resident).
    @Test func aHugeTableIsShownInPartWithANote() throws {
        let rows = (0..<1_000).map { #"{"n": "row \#($0)"}"# }.joined(separator: ", ")
        let reply = try SUSIReply(json: Data(#"""
            {"query": "q", "answers": [{"data": [\#(rows)], "actions": [{"type": "table", "columns": {"n": "Name"}}]}]}
            """#.utf8), url: "test")
        guard case .print(let table)? = SUSIRenderer().steps(for: reply).first else { Issue.record("no table printed"); return }
        let lines = table.split(separator: "\n")
        #expect(lines.count == 2 + SUSIRenderer.maximumRows + 1)
        #expect(lines.last == "(900 more rows not shown)")
        let wide = try SUSIReply(json: Data(#"""
            {"query": "q", "answers": [{"data": [{"n": "\#(String(repeating: "x", count: 30_000))"}], "actions": [{"type": "table", "columns": {"n": "Name"}}]}]}
            """#.utf8), url: "test")
        guard case .print(let cut)? = SUSIRenderer().steps(for: wide).first else { Issue.record("no table printed"); return }
        #expect(cut.count < SUSIRenderer.maximumShownCharacters + 100 && cut.hasSuffix("(cut: longer than 20000 characters)"))
    }

    @Test func rssPrintsEveryItemAndSpeaksTheFirstTitles() async throws {
        let printed = (1...4).map { "\($0). Headline \($0)\n   Story number \($0).\n   https://news.example.org/\($0)" }
        #expect(try await steps(for: .rss) == [
            .print("SUSI: Here are the news:"), .speak("Here are the news:", language: "en"),
            .print(printed.joined(separator: "\n")),
            .speak("Headline 1. Headline 2. Headline 3. And 1 more.", language: nil),
        ])
    }

    @Test func plannedAnswerWaitsForItsDelay() async throws {
        #expect(try await steps(for: .planned("Time to stretch!", delayMilliseconds: 300_000)) == [
            .print("SUSI: OK, I will remind you."), .speak("OK, I will remind you.", language: "en"),
            .planned(delay: .seconds(300), steps: [.print("SUSI: Time to stretch!"), .speak("Time to stretch!", language: nil)]),
        ])
    }

    @Test func plannedAnswerWithOnlyADateIsDueRelativeToTheAnswerDate() {
        let answered = Date(timeIntervalSince1970: 1_700_000_000)
        let reply = SUSIReply(query: "q", answerDate: answered, actions: [
            .answer(SUSIAnswer(expression: "Now!", planDate: answered.addingTimeInterval(90))),
        ])
        #expect(SUSIRenderer().steps(for: reply) == [
            .planned(delay: .seconds(90), steps: [.print("SUSI: Now!"), .speak("Now!", language: nil)]),
        ])
    }

    @Test func everyActionTypeBecomesItsSteps() async throws {
        let table = """
            Ingredient  Share
            ----------  -----
            flour       60
            water       40
            """
        let expected: [SUSIStep] = [
            .print("SUSI: Hallo!"), .speak("Hallo!", language: "de"),
            .print(table), .speak("flour, 60. water, 40.", language: nil),
            .print("1. flour\n   60\n   flour"), .speak("flour.", language: nil),
            .print("SUSI: search the web for \"swift concurrency\""), .speak("I can't search the web by voice.", language: "en"),
            .print("SUSI: Visit SUSI: https://susi.ai"), .speak("Visit SUSI", language: nil),
            .print("SUSI: map of 52.52, 13.405: https://www.openstreetmap.org/?mlat=52.52&mlon=13.405#map=13/52.52/13.405"),
            .print("SUSI: audio (youtube): https://www.youtube.com/watch?v=dQw4w9WgXcQ"),
            .speak("I can't play audio here.", language: "en"),
            .print("SUSI: video (url): https://example.org/clip.mp4"), .speak("I can't show videos here.", language: "en"),
            .setVolume(percent: 70),
            .setTimer(Date(timeIntervalSince1970: 1_700_000_000)),
            .resetTimer,
            .stopSpeaking, .playback(.pause), .playback(.resume), .playback(.restart),
            .playback(.next), .playback(.previous), .playback(.shuffle),
            .print("flour  60%\nwater  40%\ntotal  100%"),
            .print("SUSI: image: https://example.org/cat.jpg"),
        ]
        #expect(try await steps(for: .everyAction) == expected)
        #expect(try await steps(for: .everyAction, renderer: SUSIRenderer(verbose: true))
                == expected + [.unknown("SUSI sent an action this client does not know: \"hologram\"")])
    }

    @Test func unknownActionsAreIgnoredUnlessVerbose() async throws {
        let answerAndUnknown = SUSITestServer.Reply.actions([
            #"{"type": "answer", "expression": "Sure."}"#, #"{"type": "hologram", "intensity": 11}"#,
            #"{"type": "map", "latitude": 1}"#,
        ])
        #expect(try await steps(for: answerAndUnknown) == [.print("SUSI: Sure."), .speak("Sure.", language: nil)])
        #expect(try await steps(for: answerAndUnknown, renderer: SUSIRenderer(verbose: true)) == [
            .print("SUSI: Sure."), .speak("Sure.", language: nil),
            .unknown("SUSI sent an action this client does not know: \"hologram\""),
            .unknown("SUSI sent a \"map\" action without \"longitude\""),
        ])
    }

    @Test func replyWithNothingToPresentGetsAPoliteAnswer() async throws {
        let polite: [SUSIStep] = [.print("SUSI: Sorry, I have no answer to that."),
                                  .speak("Sorry, I have no answer to that.", language: "en")]
        #expect(try await steps(for: .actions([#"{"type": "hologram"}"#])) == polite)
        #expect(try await steps(for: .actions([])) == polite)
        #expect(try await steps(for: .actions([#"{"type": "answer", "expression": "  "}"#])) == polite)
    }

    @Test func answerWithoutAnswerActionStillSaysSomething() async throws {
        #expect(try await steps(for: .noAnswerAction) == [
            .print("SUSI: search the web for \"question\""), .speak("I can't search the web by voice.", language: "en"),
        ])
    }

    @Test func stepsDescribeThemselves() {
        #expect(SUSIStep.setVolume(percent: 30).description == "set volume to 30%")
        #expect(SUSIStep.planned(delay: .seconds(3900), steps: [.stopSpeaking]).description == "after 1 h 5 min: stop speaking")
        #expect(SUSIStep.format(.milliseconds(1500)) == "1.5 s")
        #expect(SUSIStep.format(.seconds(300)) == "5 min")
    }
}
