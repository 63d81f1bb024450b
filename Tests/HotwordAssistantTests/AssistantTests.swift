import Foundation
import HotwordAssistant
import HotwordAudio
import HotwordCore
import HotwordTestSupport
import Synchronization
import Testing

/// The assistant in this process, live: a paced microphone and loudspeaker behind real ALSA
/// devices, the shipped wake-word model, pocketsphinx, espeak-ng and the SUSI test server.
/// These are the cases that need its own sound in real time: a wake word while it answers, its
/// own voice, questions in a row with the cue between them. `ConversationTests` has the rest,
/// from arrays.
@Suite("Assistant, live")
struct AssistantTests {
    /// Events as they come, for waiting on.
    final class EventLog: Sendable {
        private let collected = Mutex<[AssistantEvent]>([])

        var events: [AssistantEvent] { collected.withLock { $0 } }

        func append(_ event: AssistantEvent) { collected.withLock { $0.append(event) } }

        func count(_ matching: (AssistantEvent) -> Bool) -> Int { events.filter(matching).count }

        /// Waits until `condition` holds (true) or `timeout` passes (false).
        func wait(timeout: Duration = .seconds(60), _ condition: () -> Bool) async -> Bool {
            let deadline = ContinuousClock.now + timeout
            while !condition() {
                guard ContinuousClock.now < deadline else { return false }
                try? await Task.sleep(for: .milliseconds(20))
            }
            return true
        }

        var wakes: Int { count { if case .wake = $0 { true } else { false } } }
        var transcripts: [String] { events.compactMap { if case .transcript(let text, _, _) = $0 { text } else { nil } } }
        func entered(_ state: AssistantState) -> Int { count { $0 == .state(state) } }
    }

    /// A running assistant with its microphone, loudspeaker, server and events.
    struct Rig {
        let folder: URL
        let microphone: PacedMicrophone
        let loudspeaker: PacedLoudspeaker
        let server: SUSITestServer
        let assistant: Assistant
        let log: EventLog
        let running: Task<Void, Never>

        init(answers: [SUSITestServer.Reply], adjust: (inout AssistantConfiguration) -> Void = { _ in }) async throws {
            _ = ALSATestDevices.configPath
            folder = try TestPaths.temporaryDirectory()
            microphone = try PacedMicrophone(folder: folder, speed: 4)
            loudspeaker = try PacedLoudspeaker(folder: folder, sampleRate: 16_000, speed: 4)
            server = try SUSITestServer(fallback: .answer("I have nothing more to say."))
            for answer in answers { server.enqueue(answer) }
            var configuration = AssistantConfiguration(clientVersion: "test")
            configuration.audio.captureDevice = microphone.deviceName
            configuration.audio.playbackDevice = loudspeaker.deviceName
            configuration.audio.playbackRate = 16_000
            configuration.susi.server = server.baseURL
            configuration.susi.retry = .never
            configuration.history.file = folder.appendingPathComponent("history.sqlite")
            configuration.susiLogin.tokenFile = folder.appendingPathComponent("susi-token.json")
            configuration.skillCacheFolder = folder.appendingPathComponent("susi-skills")
            adjust(&configuration)
            let log = EventLog()
            do {
                assistant = try await Assistant(configuration: configuration) { log.append($0) }
            } catch .model(let error) {
                Issue.record("""
                    these tests need the wake-word model hey_susi: the shipped Models/hey_susi.hwks, \
                    or a folder holding a hey_susi.hwks in HOTWORD_MODELS (\(error))
                    """)
                throw error
            }
            self.log = log
            let assistant = assistant
            running = Task { await assistant.run() }
        }

        func stop() async {
            assistant.stop()
            await running.value
            microphone.close()
            loudspeaker.close()
            server.shutdown()
            try? FileManager.default.removeItem(at: folder)
        }
    }

    static func silence(_ seconds: Double) -> [Float] {
        [Float](repeating: 0, count: Int(seconds * 16_000))
    }

    static let longAnswer = """
        Berlin will be sunny all day with a light breeze from the west. Temperatures climb to twenty \
        four degrees in the afternoon and fall to fourteen at night. Tomorrow brings clouds and a \
        chance of rain in the evening, so take an umbrella if you go out late.
        """

    /// Checked (pocketsphinx confirms the wake word a second later), the answer is muted while
    /// the check decides, so the question said over it is heard as speech, not as its own sound.
    @Test(arguments: [false, true])
    func aWakeWordDuringTheAnswerStopsItAndStartsANewQuestion(checked: Bool) async throws {
        let rig = try await Rig(answers: [.answer(Self.longAnswer), .answer("It is ten o'clock.")]) {
            $0.detector.checkPhrase = checked
        }
        rig.microphone.say(Self.silence(2.5) + (try await SpeechFixtures.speech("hey susi, what is the weather like today")))
        // Once the long answer is audibly playing, the user speaks over it.
        let playing = await rig.log.wait { rig.log.entered(.speaking) == 1 && rig.loudspeaker.playedSeconds > 0.5 }
        rig.microphone.say(try await SpeechFixtures.speech("hey susi, what time is it"))
        // Barge-in goes straight to recording: listening again only after the second answer.
        let answeredAgain = await rig.log.wait { rig.log.entered(.listening) == 2 && rig.server.chatRequests.count == 2 }
        await rig.stop()

        #expect(playing && answeredAgain, "\(rig.log.events)")
        #expect(rig.log.events.contains(.bargeIn(interrupted: .speaking)))
        #expect(rig.log.wakes == 2)
        #expect(rig.server.chatRequests.count == 2)
        #expect(transcript(rig.log.transcripts.last ?? "", contains: "time"), "\(rig.log.transcripts)")
        #expect(rig.log.events.last == .state(.listening))
        // The long answer was cut: everything played is far shorter than it alone would be.
        let full = try await EspeakSynthesizer().synthesize(Self.longAnswer).duration
        #expect(rig.loudspeaker.playedSeconds < full - 2, "played \(rig.loudspeaker.playedSeconds) s of a \(full) s answer and more")
    }

    @Test func itsOwnVoiceSayingTheWakeWordDoesNotWakeIt() async throws {
        let answer = "My name is SUSI. Say hey susi when you need me."
        // The test's pipes delay the "echo" by a few hundred milliseconds, more than a room would.
        let rig = try await Rig(answers: [.answer(answer)]) { $0.wake.echoTailMilliseconds = 1_000 }
        rig.microphone.say(Self.silence(2.5) + (try await SpeechFixtures.speech("hey susi, what is your name")))
        // The room: what the loudspeaker plays comes back into the microphone (after the cue).
        let cue = Double(Chime.samples.count) / Double(AudioFormat.sampleRate)
        let playing = await rig.log.wait { rig.log.entered(.speaking) == 1 && rig.loudspeaker.playedSeconds > cue + 0.05 }
        let ownVoice = try await EspeakSynthesizer().synthesize(answer)
        rig.microphone.say(try Resampler.convert(ownVoice.samples, from: Double(ownVoice.sampleRate), to: 16_000).map { $0 * 0.7 })
        try await rig.microphone.waitUntilSaid(margin: .seconds(2))
        // Afterwards the wake word works as before.
        rig.microphone.say(try await SpeechFixtures.speech("hey susi, what time is it"))
        let answeredAgain = await rig.log.wait { rig.log.entered(.listening) == 3 }
        await rig.stop()

        #expect(playing && answeredAgain, "\(rig.log.events)")
        #expect(rig.log.wakes == 2)
        #expect(!rig.log.events.contains { if case .bargeIn = $0 { true } else { false } })
        #expect(rig.server.chatRequests.count == 2)
    }

    @Test func aQuestionRightAfterAnotherIsHeardWholeAndOnlyOnce() async throws {
        // The first answer is held back so the second question always comes while the first is
        // still in hand (transcribed or asked). Answered at once, the first answer may already be
        // playing at the second wake word on a loaded machine, and at the microphone's fourfold
        // speed the reaction to the barge-in then covers the whole short question with the
        // assistant's own sound: `aWakeWordDuringTheAnswerStopsItAndStartsANewQuestion` is that case.
        let rig = try await Rig(answers: [.slow(.seconds(2), .answer("Sunny.")), .answer("Ten o'clock.")])
        // The second question follows the first after a short pause: nothing of it may be lost,
        // and neither wake word may be heard twice.
        rig.microphone.say(Self.silence(2.5) + (try await SpeechFixtures.speech("hey susi, what is the weather like today"))
            + Self.silence(1.2) + (try await SpeechFixtures.speech("hey susi, what time is it")) + Self.silence(1))
        try await rig.microphone.waitUntilSaid()
        let done = await rig.log.wait { rig.log.wakes == 2 && rig.log.events.last == .state(.listening) }
        try await rig.microphone.waitUntilSaid(margin: .seconds(3))
        await rig.stop()

        #expect(done, "\(rig.log.events)")
        #expect(rig.log.wakes == 2)
        // Heard whole: the second recording holds at least the question's own speech. (Its words
        // are pocketsphinx's: where the recording starts moves with the real-time pacing by a few
        // milliseconds, and "what time is it" then comes back as "what time is it" or "wow i visit".)
        let question = try SpeechFixtures.spokenDuration(await EspeakSynthesizer(SpeechFixtures.recognisableVoice).synthesize("what time is it"))
        let recorded = rig.log.events.compactMap { if case .utteranceEnd(let duration, _) = $0 { duration } else { nil } }
        #expect(recorded.count == 2 && recorded[1] >= question, "\(recorded) s recorded, the question is \(question) s: \(rig.log.events)")
        #expect((rig.log.transcripts.last ?? "").split(separator: " ").count >= 3, "\(rig.log.transcripts)")
        #expect(rig.server.chatRequests.last?.query("q") == rig.log.transcripts.last)
    }
}
