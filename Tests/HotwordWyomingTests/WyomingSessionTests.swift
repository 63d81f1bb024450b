import Foundation
import HotwordAudio
import HotwordCore
import HotwordModels
import HotwordTestSupport
import HotwordWyoming
import Testing

/// One connection's events in and out, with the shipped models and real recordings.
@Suite struct WyomingSessionTests {
    static let computerClip = TestPaths.sharedData.appendingPathComponent("keywords/computer/24678e0b-4c73-4157-8a1f-50cc8f7b4020.flac")
    static let speechClip = TestPaths.sharedData.appendingPathComponent("speech/speechocean762/SPEAKER0044_000440005.flac")

    let catalog: WakeWordCatalog

    init() throws {
        let models = TestPaths.projectRoot.appendingPathComponent("Models")
        catalog = try WakeWordCatalog(entries: ["computer", "jarvis"].map { name in
            WakeWordEntry(name: name, model: try ModelStore.load(models.appendingPathComponent("\(name).hwks").path))
        }, programVersion: "test")
    }

    /// 16-bit little-endian PCM of a recording (16 kHz mono).
    static func pcm(_ url: URL) throws -> [UInt8] {
        try AudioFileReader.read(url).samples.flatMap { sample -> [UInt8] in
            let value = Int16(max(-32_768, min(32_767, (sample * 32_768).rounded())))
            return [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)]
        }
    }

    /// Streams `audio` as the reference's client does (start, 20 ms chunks, stop) and collects the replies.
    private func stream(_ session: WyomingSession, _ audio: [UInt8], start: Int = 0) throws -> [WyomingEvent] {
        let format: [String: JSONValue] = ["rate": 16000, "width": 2, "channels": 1]
        var replies = try session.handle(WyomingEvent(type: "audio-start", data: format.merging(["timestamp": .number(Double(start))]) { $1 }))
        for (index, offset) in stride(from: 0, to: audio.count, by: 640).enumerated() {
            let chunk = Array(audio[offset..<min(offset + 640, audio.count)])
            replies += try session.handle(WyomingEvent(type: "audio-chunk", data: format.merging(["timestamp": .number(Double(start + 20 * index))]) { $1 }, payload: chunk))
        }
        return replies + (try session.handle(WyomingEvent(type: "audio-stop", data: ["timestamp": .number(Double(start + audio.count / 32))])))
    }

    @Test func describeListsEveryModelAsTheReferencesInfoHasIt() throws {
        let info = try #require(try WyomingSession(catalog: catalog).handle(WyomingEvent(type: "describe")).first)
        #expect(info.type == "info")
        let wake = info.data["wake"]?.array?.first?.object
        let program = try #require(wake)
        #expect(program["name"] == "hotword" && program["installed"] == true && program["attribution"]?.object?["name"] == "hotword")
        #expect(program["attribution"]?.object?["url"] == "man:hotword(1)")
        let models = program["models"]?.array?.compactMap(\.object) ?? []
        #expect(models.map { $0["name"] } == ["computer", "jarvis"])
        for model in models {
            for field in ["name", "description", "version", "attribution", "installed", "languages", "phrase"] {
                #expect(model[field] != nil, "model field \(field)")
            }
        }
    }

    @Test func aKeywordIsDetectedOnceWithItsModelNameAndTheClientsTime() throws {
        let replies = try stream(WyomingSession(catalog: catalog), Self.pcm(Self.computerClip), start: 60_000)
        #expect(replies.map(\.type) == ["detection"], "no not-detected after a detection: \(replies)")
        #expect(replies.first?.data["name"] == "computer")
        // The clip's keyword is spoken from 1.3 s to 2.0 s; the detection comes at its end.
        let timestamp = replies.first?.data["timestamp"]?.integer ?? -1
        #expect((61_300...62_100).contains(timestamp), "timestamp \(timestamp)")
    }

    @Test func speechWithoutAKeywordIsNotDetectedAndTheNextStreamStartsAfresh() throws {
        let session = WyomingSession(catalog: catalog)
        #expect(try stream(session, Self.pcm(Self.speechClip)).map(\.type) == ["not-detected"])
        // Same connection, next stream: detection times count from that stream's start.
        let replies = try stream(session, Self.pcm(Self.computerClip))
        #expect(replies.map(\.type) == ["detection"])
        #expect((1_300...2_100).contains(replies.first?.data["timestamp"]?.integer ?? -1))
    }

    /// A keyword with a second stage is reported once the second after it has come and the check
    /// agrees: a tone model ("beep" at 1 kHz) stands in for the network, `ToneCheck` (a 1.5 kHz
    /// ping after the beep) for pocketsphinx. Its timestamp is still the detection's.
    @Test func aCheckedKeywordIsReportedASecondLaterOnlyWhereTheCheckAgrees() throws {
        let catalog = try WakeWordCatalog(entries: [WakeWordEntry(name: "beep", model: ToneModels.model(keyword: "beep", frequency: 1_000))],
                                          programVersion: "test", checks: ["beep": ToneCheck()])
        let audio = ToneModels.signal(seconds: 7, tones: [(1, 1_000), (1.1, 1_500), (4, 1_000)], length: 0.06)
        let pcm = audio.flatMap { sample -> [UInt8] in
            let value = Int16(max(-32_768, min(32_767, (sample * 32_768).rounded())))
            return [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)]
        }
        let session = WyomingSession(catalog: catalog)
        let format: [String: JSONValue] = ["rate": 16000, "width": 2, "channels": 1]
        _ = try session.handle(WyomingEvent(type: "audio-start", data: format.merging(["timestamp": 0]) { $1 }))
        var replies: [(sentUpTo: Int, event: WyomingEvent)] = []
        for offset in stride(from: 0, to: pcm.count, by: 640) {
            let sent = try session.handle(WyomingEvent(type: "audio-chunk", data: format, payload: Array(pcm[offset..<min(offset + 640, pcm.count)])))
            replies += sent.map { ((offset + 640) / 32, $0) }
        }
        replies += try session.handle(WyomingEvent(type: "audio-stop")).map { (7_000, $0) }

        #expect(replies.map(\.event.type) == ["detection"], "the beep alone at 4 s is dropped: \(replies.map(\.event))")
        let timestamp = replies.first?.event.data["timestamp"]?.integer ?? -1
        #expect((1_000...1_100).contains(timestamp), "timestamp \(timestamp)")
        #expect((replies.first?.sentUpTo ?? 0) >= timestamp + 1_000, "sent once the second after it had come")
    }

    @Test func detectChoosesModelsByNameOrKeywordAndRefusesUnknownOnes() throws {
        let session = WyomingSession(catalog: catalog)
        #expect(try session.handle(WyomingEvent(type: "detect", data: ["names": ["Jarvis"]])) == [])
        #expect(session.listeningFor == ["jarvis"])
        #expect(try stream(session, Self.pcm(Self.computerClip)).map(\.type) == ["not-detected"], "computer is not listened for")
        let refused = try session.handle(WyomingEvent(type: "detect", data: ["names": ["hey_mycroft"]]))
        #expect(refused.map(\.type) == ["error"] && refused.first?.data["code"] == "unknown-wake-word")
        #expect(session.listeningFor == ["jarvis"], "an unknown name changes nothing")
        #expect(try session.handle(WyomingEvent(type: "detect", data: ["names": .null])) == [])
        #expect(session.listeningFor == ["computer", "jarvis"])
    }

    @Test func chunksWithoutAudioStartAndUnknownEventsArePartOfTheProtocol() throws {
        let session = WyomingSession(catalog: catalog)
        #expect(try session.handle(WyomingEvent(type: "transcribe", data: ["language": "en"])) == [])
        #expect(try session.handle(WyomingEvent(type: "ping", data: ["text": "hi"])) == [WyomingEvent(type: "pong", data: ["text": "hi"])])
        let audio = try Self.pcm(Self.computerClip)
        var replies: [WyomingEvent] = []
        for offset in stride(from: 0, to: audio.count, by: 3_200) {
            replies += try session.handle(WyomingEvent(type: "audio-chunk", data: ["rate": 16000, "width": 2, "channels": 1, "timestamp": .number(Double(500 + offset / 32))],
                                                      payload: Array(audio[offset..<min(offset + 3_200, audio.count)])))
        }
        #expect(replies.map(\.type) == ["detection"])
        #expect((1_800...2_600).contains(replies.first?.data["timestamp"]?.integer ?? -1), "the first chunk's timestamp is the stream's start")
    }

    @Test func audioThatCannotBeReadIsAnErrorForThatConnection() throws {
        let session = WyomingSession(catalog: catalog)
        #expect(throws: WyomingSessionError.invalidField(event: "audio-start", field: "rate", value: "(none)")) {
            try session.handle(WyomingEvent(type: "audio-start", data: ["width": 2, "channels": 1]))
        }
        #expect(throws: WyomingSessionError.self) {
            try session.handle(WyomingEvent(type: "audio-chunk", data: ["rate": 16000, "width": 2, "channels": 1], payload: [1, 2, 3]))
        }
        // Said as the client wrote it, not as Swift's `string("computer")`.
        #expect(throws: WyomingSessionError.invalidField(event: "detect", field: "names", value: "\"computer\"")) {
            try session.handle(WyomingEvent(type: "detect", data: ["names": "computer"]))
        }
    }
}
