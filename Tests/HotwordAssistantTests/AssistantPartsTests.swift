import Foundation
@testable import HotwordAssistant
import HotwordJSON
import HotwordTestSupport
import Synchronization
import Testing

@Suite("Assistant parts")
struct AssistantPartsTests {
    /// A capture position the test moves by hand.
    final class Clock: Sendable {
        private let value = Atomic<UInt64>(0)
        var position: UInt64 {
            get { value.load(ordering: .relaxed) }
            set { value.store(newValue, ordering: .relaxed) }
        }
    }

    /// `auto` finds Whisper installed, but its model.bin is damaged: pocketsphinx hears the
    /// questions and the assistant starts. Named explicitly (`whisper`), the same folder is an error.
    @Test func autoHearsWithPocketsphinxWhenTheInstalledWhisperWillNotLoad() async throws {
        let folder = try TestPaths.temporaryDirectory("whisper-damaged")
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("not a model".utf8).write(to: folder.appendingPathComponent("model.bin"))
        let transcriber = try await QuestionTranscriber(SpeechToTextSettings(), installedWhisper: [folder.path])
        #expect(transcriber.engine == .pocketsphinx)

        var whisper = SpeechToTextSettings()
        whisper.backend = .whisper
        whisper.whisper.model = folder.path
        await #expect(throws: SpeechToTextError.self) { _ = try await QuestionTranscriber(whisper, installedWhisper: []) }
    }

    @Test func ownSoundsCoverFromTheirStartToTheirEndPlusTheAskersTail() {
        let clock = Clock()
        let log = OwnOutputLog(capturePosition: { clock.position })
        clock.position = 1_000
        let cue = log.begin(.sound)
        #expect(log.strongest(in: 0..<1_000, tail: 0) == nil)  // captured before it started
        #expect(log.strongest(in: 999..<1_001, tail: 0) == .sound)
        #expect(log.strongest(in: 50_000..<50_512, tail: 0) == .sound)  // still playing: open-ended
        clock.position = 4_000
        log.end(cue)
        #expect(log.strongest(in: 4_100..<4_200, tail: 0) == nil)
        #expect(log.strongest(in: 4_100..<4_200, tail: 1_600) == .sound)
        #expect(log.strongest(in: 5_600..<6_000, tail: 1_600) == nil)

        clock.position = 10_000
        let speech = log.begin(.wakeWordSpeech)
        clock.position = 20_000
        log.end(speech)
        #expect(log.strongest(in: 3_000..<12_000, tail: 0) == .wakeWordSpeech)  // the stronger of both
    }

    @Test func theOldestSoundsMakeRoomForNewOnes() {
        let clock = Clock()
        let log = OwnOutputLog(capturePosition: { clock.position }, capacity: 2)
        for start in [100, 200, 300] as [UInt64] {
            clock.position = start
            let token = log.begin(.sound)
            clock.position = start + 10
            log.end(token)
        }
        #expect(log.strongest(in: 100..<110, tail: 0) == nil)
        #expect(log.strongest(in: 200..<210, tail: 0) == .sound)
        #expect(log.strongest(in: 300..<310, tail: 0) == .sound)
    }

    @Test func theWakeWordIsFoundInWhatTheAssistantSays() {
        let words = WakeWordText(keywords: ["hey susi", "computer"])
        #expect(words.occur(in: "Hi! I'm SUSI."))
        #expect(words.occur(in: "That is SUSI's favourite song"))
        #expect(words.occur(in: "Ask the computer"))
        #expect(!words.occur(in: "Hey, it is sunny today"))  // "hey" alone is too common to count
        #expect(!words.occur(in: "Susie Q is a song"))  // whole words only
    }

    @Test func eventsAreOneLineOfJSONEach() throws {
        let events: [AssistantEvent] = [
            .state(.listening), .wake(keyword: "hey susi", score: 0.98765, time: 3.14159),
            .bargeIn(interrupted: .speaking), .utteranceStart(time: 3.5), .utteranceEnd(duration: 2.25, reason: .trailingSilence),
            .noSpeech, .transcript("what's \"up\"\n", engine: .wyoming, seconds: 0.4126), .answer("SUSI: Hi\tthere"), .error(stage: .ask, message: "SUSI server unreachable"),
            .speechToTextLost(engine: .wyoming, fallback: .pocketsphinx, message: "speech to text (wyoming): cannot connect"),
            .speechToTextRestored(engine: .wyoming),
        ]
        let lines = events.map(\.json)
        #expect(lines[0] == #"{"event":"state","state":"listening"}"#)
        #expect(lines[1] == #"{"event":"wake","keyword":"hey susi","score":0.988,"time":3.142}"#)
        #expect(lines[2] == #"{"event":"barge_in","interrupted":"speaking"}"#)
        #expect(lines[4] == #"{"event":"utterance_end","duration":2.25,"reason":"trailing_silence"}"#)
        #expect(lines[5] == #"{"event":"no_speech"}"#)
        #expect(lines[6] == #"{"event":"transcript","text":"what's \"up\"\n","stt_engine":"wyoming","latency_s":0.413}"#)
        // A program reading the answer knows who spoke: the text is the answer alone.
        #expect(lines[7] == #"{"event":"answer","text":"Hi\tthere"}"#)
        for line in lines {
            #expect(!line.contains("\n"))
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object?["event"] is String, "\(line)")
        }
        let transcript = try JSONSerialization.jsonObject(with: Data(lines[6].utf8)) as? [String: Any]
        #expect(transcript?["text"] as? String == "what's \"up\"\n")
        #expect(lines[9] == #"{"event":"stt_lost","stt_engine":"wyoming","fallback":"pocketsphinx","message":"speech to text (wyoming): cannot connect"}"#)
        #expect(lines[10] == #"{"event":"stt_restored","stt_engine":"wyoming"}"#)
        #expect(events.compactMap(\.text) == [
            "You: what's \"up\"\n", "SUSI: Hi\tthere",
            "(speech to text (wyoming): cannot connect; pocketsphinx hears the questions until wyoming answers again)",
            "(speech to text: wyoming answers again)",
        ])
        #expect(AssistantEvent.transcript("", engine: .pocketsphinx, seconds: 0).text == "You: …")
    }

    @Test func jsonStringsReadBackAsTheTextTheyWereMadeFrom() throws {
        let text = "a \"quote\", a back\\slash, a/slash, tab\t, bell\u{07}, NUL\u{00}, DEL\u{7F}, line\r\n, ünïcødé 🎤"
        let quoted = JSONText.quoted(text)
        #expect(quoted.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7F }, "no raw control characters: \(quoted)")
        #expect(quoted.contains("a/slash") && quoted.contains("ünïcødé 🎤"), "left as they are: \(quoted)")
        #expect(try JSONSerialization.jsonObject(with: Data("[\(quoted)]".utf8)) as? [String] == [text])
    }

    @Test func theChimeIsShortSoftAndTheSameEveryTime() {
        let samples = Chime.samples
        #expect(samples.count == 2 * 1_440)  // two 90 ms tones at 16 kHz
        #expect(samples.map(abs).max()! <= 0.3)
        #expect(abs(samples.first!) < 0.01 && abs(samples.last!) < 0.01)  // faded in and out
        #expect(samples == Chime.samples)
    }
}
