import Foundation
@testable import HotwordAssistant
import HotwordAudio
import HotwordCore
import HotwordTestSupport
import Synchronization
import Testing

/// The listener's two threads fed from arrays (`QueuedAudio`): its watchdog pings, new
/// settings taken up mid-stream, the follow-up window opened from another thread. What it hears is `HearingTests`' subject.
@Suite("Listener")
struct ListenerTests {
    /// Events as the listener thread emits them.
    final class EventLog: Sendable {
        private let events = Mutex<[HearingEvent]>([])

        func append(_ event: HearingEvent) { events.withLock { $0.append(event) } }

        var wakes: [(keyword: String, position: UInt64)] {
            events.withLock { $0.compactMap { if case .wake(let detection, let position) = $0 { (detection.keyword, position) } else { nil } } }
        }

        var utterances: Int {
            events.withLock { $0.filter { if case .utterance = $0 { true } else { false } }.count }
        }

        var all: [HearingEvent] { events.withLock { $0 } }

        var rejected: Int {
            events.withLock { $0.filter { if case .wakeRejected = $0 { true } else { false } }.count }
        }

        var followUps: Int {
            events.withLock { $0.filter { if case .followUp = $0 { true } else { false } }.count }
        }

        /// Waits until `condition` holds (true) or ten seconds pass (false).
        func wait(_ condition: () -> Bool) async -> Bool {
            let deadline = ContinuousClock.now + .seconds(10)
            while !condition() {
                guard ContinuousClock.now < deadline else { return false }
                try? await Task.sleep(for: .milliseconds(5))
            }
            return true
        }
    }

    struct Rig {
        let folder: URL
        let microphone = QueuedAudio()
        let ring = SampleRing(minimumCapacity: 30 * AudioFormat.sampleRate)
        let ownOutput: OwnOutputLog

        init() throws {
            folder = try TestPaths.temporaryDirectory()
            ownOutput = OwnOutputLog(capturePosition: { [ring] in ring.totalWritten })
        }

        /// Settings for tone keywords (name, frequency).
        func settings(_ tones: [(String, Double)], _ configuration: AssistantConfiguration = AssistantConfiguration(clientVersion: "test"))
            throws(AssistantError) -> ListenerSettings {
            try ListenerSettings(models: tones.map { ToneModels.model(keyword: $0.0, frequency: $0.1) }, configuration: configuration,
                                 ring: ring, ownOutput: ownOutput)
        }

        func listener(_ tones: [(String, Double)], watchdog: ServiceNotifier? = nil,
                      emit: @escaping @Sendable (HearingEvent) -> Void) throws -> Listener {
            Listener(source: microphone, periodFrames: 512, ring: ring, settings: try settings(tones), watchdog: watchdog, emit: emit)
        }

        func close() {
            try? FileManager.default.removeItem(at: folder)
        }
    }

    @Test func newSettingsWaitForTheQuestionToEndAndLoseNoAudio() async throws {
        let rig = try Rig()
        defer { rig.close() }
        let log = EventLog()
        let listener = try rig.listener([("beep", 1_000)]) { log.append($0) }
        listener.start()
        // 1 kHz at 0.5 s, 2 kHz at 4 s and 1 kHz at 7.5 s, each with its question: one stream, so
        // the detections are as far apart as the tones.
        let stream = HearingTests.audio(10.5, wakes: [(0.5, 1_000), (4, 2_000), (7.5, 1_000)],
                                        questions: [(1.3, 0.6), (4.8, 0.6), (8.3, 0.6)])
        rig.microphone.say(Array(stream[..<HearingTests.samples(1.5)]))
        let woken = await log.wait { !log.wakes.isEmpty }
        // While its question is being recorded: the new models wait for its end.
        try listener.replace { [rig] () throws(AssistantError) -> sending ListenerSettings in
            try rig.settings([("beep", 1_000), ("boop", 2_000)])
        }
        rig.microphone.say(Array(stream[HearingTests.samples(1.5)...]))
        let heard = await log.wait { log.utterances == 3 }
        listener.stop()

        #expect(woken && heard, "\(log.wakes)")
        let found = log.wakes
        #expect(found.map(\.keyword) == ["beep", "boop", "beep"], "\(found)")
        #expect(log.utterances == 3)
        #expect(rig.ring.totalDropped == 0)
        if found.count == 3 {
            for (index, seconds) in [(1, 3.5), (2, 7.0)] {
                let apart = HearingTests.seconds(found[index].position - found[0].position)
                #expect(abs(apart - seconds) <= 0.01, "wake \(index) came \(apart) s after the first, not \(seconds) s")
            }
        }
    }

    /// `check_phrase` through the real setup: pocketsphinx, on the listener thread, confirms a
    /// detection of "computer" (a tone model, fired by a 1 kHz beep) only where the word was said
    /// before the beep; a beep alone is rejected.
    @Test func thePhraseCheckAnswersOnlyWhereThePhraseWasSaid() async throws {
        let rig = try Rig()
        defer { rig.close() }
        var configuration = AssistantConfiguration(clientVersion: "test")
        configuration.detector.checkPhrase = true
        let log = EventLog()
        let listener = Listener(source: rig.microphone, periodFrames: 512, ring: rig.ring,
                                settings: try rig.settings([("computer", 1_000)], configuration),
                                watchdog: nil) { log.append($0) }
        listener.start()
        let phrase = try await SpeechFixtures.speech("computer")
        let beep = HearingTests.audio(0.3, wakes: [(0.05, 1_000)])
        let quiet = HearingTests.audio(3)
        // A beep alone, then the phrase with the beep at its end, then a question.
        rig.microphone.say(quiet + beep + quiet + phrase + beep + HearingTests.audio(4, questions: [(0.5, 0.6)]))
        let heard = await log.wait { log.utterances == 1 }
        listener.stop()

        #expect(heard, "\(log.wakes)")
        #expect(log.wakes.count == 1, "\(log.wakes)")
        let phraseEnd = Double(3 + 0.3 + 3) + Double(phrase.count) / Double(AudioFormat.sampleRate)
        let wake = log.wakes.first.map { HearingTests.seconds($0.position) } ?? 0
        #expect(wake > phraseEnd && wake < phraseEnd + 0.3, "the beep after the phrase, at \(wake) s")
        #expect(log.rejected == 1, "the beep alone: \(log.all)")
    }

    @Test func settingsThatDoNotBuildChangeNothing() async throws {
        let rig = try Rig()
        defer { rig.close() }
        let log = EventLog()
        let listener = try rig.listener([("beep", 1_000)]) { log.append($0) }
        listener.start()
        var configuration = AssistantConfiguration(clientVersion: "test")
        configuration.wake.keywords["beep"] = KeywordSettings(sensitivity: 0.5, smoothingSeconds: 99)
        #expect(throws: AssistantError.self) {
            try listener.replace { [rig] () throws(AssistantError) -> sending ListenerSettings in
                try rig.settings([("beep", 1_000), ("boop", 2_000)], configuration)
            }
        }
        rig.microphone.say(HearingTests.oneQuestion)
        let heard = await log.wait { log.utterances == 1 }
        listener.stop()
        #expect(heard && log.wakes.map(\.keyword) == ["beep"])
    }

    @Test func theListenerThreadPingsTheWatchdogAndStopsWhenItIsStuck() async throws {
        let rig = try Rig()
        defer { rig.close() }
        let socket = try NotifySocket(path: rig.folder.appendingPathComponent("notify").path)
        defer { socket.close() }
        let notifier = try ServiceNotifier(socket: socket.address, watchdogInterval: .milliseconds(100))
        let stuck = DispatchSemaphore(value: 0)
        let woken = Atomic(false)
        // The wake event is handled on the listener thread: holding it there is a stuck audio loop.
        let listener = try rig.listener([("beep", 1_000)], watchdog: notifier) { event in
            guard case .wake = event else { return }
            woken.store(true, ordering: .relaxed)
            stuck.wait()
        }
        listener.start()
        func pings() -> [NotifySocket.Message] { socket.messages.filter { $0.text == "WATCHDOG=1" } }

        // With no audio at all, as from a microphone being reopened, it pings.
        let pinging = await socket.wait(timeout: .seconds(10)) { _ in pings().count >= 5 }
        rig.microphone.say(ToneModels.signal(seconds: 1.5, tones: [(0.5, 1_000)]))
        let deadline = ContinuousClock.now + .seconds(10)
        while !woken.load(ordering: .relaxed), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        let wokeUp = woken.load(ordering: .relaxed)
        try #require(wokeUp, "the tone woke nothing")
        let stuckSince = ContinuousClock.now
        try await Task.sleep(for: .milliseconds(600))
        let pingsWhileStuck = pings().filter { $0.time > stuckSince + .milliseconds(20) }.count
        stuck.signal()
        let before = pings().count
        let pingingAgain = await socket.wait(timeout: .seconds(10)) { _ in pings().count >= before + 3 }
        listener.stop()

        #expect(pinging && pingingAgain)
        #expect(pingsWhileStuck == 0)
    }

    @Test func theEndOfAnAnswerOpensTheFollowUpWindowOnTheListenerThread() async throws {
        let rig = try Rig()
        defer { rig.close() }
        let log = EventLog()
        var configuration = AssistantConfiguration(clientVersion: "test")
        configuration.phrases.followUpSeconds = 3
        let listener = Listener(source: rig.microphone, periodFrames: 512, ring: rig.ring,
                                settings: try rig.settings([("beep", 1_000)], configuration), watchdog: nil) { log.append($0) }
        listener.start()
        rig.microphone.say(HearingTests.oneQuestion)
        let asked = await log.wait { log.utterances == 1 }
        // The answer has ended.
        listener.openFollowUp()
        rig.microphone.say(HearingTests.ratingAfterAnAnswer)
        let followedUp = await log.wait { log.followUps == 1 }
        listener.stop()

        #expect(asked && followedUp)
        #expect(log.wakes.count == 1 && log.utterances == 1)
    }
}
