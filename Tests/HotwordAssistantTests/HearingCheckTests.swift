import Foundation
@testable import HotwordAssistant
import HotwordAudio
import HotwordCore
import HotwordTestSupport
import Testing

/// `Hearing` with a second stage (`checks`), from arrays. The tone stands in for the phrase:
/// the "beep" model fires on a 1 kHz burst, and the check agrees only where a 1.5 kHz burst
/// ("ping") follows it — the whole wake word — as pocketsphinx agrees only where the whole
/// phrase was said. A beep alone is the first stage's false alarm.
@Suite("Hearing with a second stage, from arrays")
struct HearingCheckTests {
    typealias Rig = HearingTests.Rig

    /// The whole wake word at `start`: the beep the detector hears, the ping the check wants.
    static func wakeWord(at start: Double) -> [(Double, Double)] { [(start, 1_000), (start + 0.1, 1_500)] }

    /// A wake word at 0.5 s and its question from 0.9 s, within the second the check waits for.
    static let checkedQuestion = HearingTests.audio(4, wakes: wakeWord(at: 0.5), questions: [(0.9, 0.6)])

    @Test func aConfirmedWakeWordIsHeardAsWithoutTheCheckAndItsQuestionLosesNothing() throws {
        let plain = try Rig()
        plain.hear(Self.checkedQuestion)
        let check = ToneCheck()
        let rig = try Rig(checks: ["beep": check])
        rig.hear(Self.checkedQuestion)

        try #require(plain.wakes.count == 1 && plain.utterances.count == 1, "\(plain.summary)")
        // Announced at the detection, so the assistant can silence its own sound while it waits.
        guard case .wakeChecking(let waiting, let position) = rig.heard.first else {
            Issue.record("first \(rig.summary)")
            return
        }
        #expect(waiting.keyword == "beep" && position == plain.wakes[0].position)
        #expect(Array(rig.heard.dropFirst()) == plain.heard,
                "then the same wake, at the same sample, and the same question: \(rig.summary), not \(plain.summary)")
        // Asked once, about the audio from the stream's start (less than 2 s before) to 1 s after the detection.
        let detection = Int(plain.wakes[0].position)
        try #require(check.windows.count == 1)
        #expect(check.windows[0] == Array(Self.checkedQuestion[0..<(detection + Int(CheckedWindow.after * Double(HearingTests.rate)))]))
    }

    @Test func aWakeWordTheCheckRejectsIsReportedAndNothingElseChanges() throws {
        // A beep alone at 0.5 s with speech after it; the whole wake word at 4 s and its question.
        let stream = HearingTests.audio(7, wakes: [(0.5, 1_000)] + Self.wakeWord(at: 4), questions: [(1.3, 0.6), (4.8, 0.6)])
        let rig = try Rig(checks: ["beep": ToneCheck()])
        rig.hear(stream)

        let rejected = rig.events.compactMap { if case .wakeRejected(let detection) = $0 { detection.time } else { nil } }
        #expect(rejected.count == 1 && rejected.allSatisfy { $0 > 0.5 && $0 < 0.6 }, "\(rig.summary)")
        let checking = rig.events.filter { if case .wakeChecking = $0 { true } else { false } }
        #expect(checking.count == 2 && !rig.events.contains { if case .checkAbandoned = $0 { true } else { false } },
                "each detection waits once and is decided: \(rig.summary)")
        try #require(rig.wakes.count == 1 && rig.utterances.count == 1, "\(rig.summary)")
        let wake = HearingTests.seconds(rig.wakes[0].position)
        #expect(wake > 4 && wake < 4.1, "the confirmed one, detected at \(wake) s")
        #expect(!rig.hearing.isRecording)
    }

    @Test func chunkBoundariesChangeNothingWithTheCheck() throws {
        let stream = HearingTests.audio(8, wakes: [(0.5, 1_000)] + Self.wakeWord(at: 3) + Self.wakeWord(at: 5.2),
                                        questions: [(3.4, 0.5)])
        let whole = try Rig(checks: ["beep": ToneCheck()])
        whole.hear(stream, chunks: [stream.count])
        #expect(whole.wakes.count == 2 && whole.utterances.count == 1, "\(whole.summary)")
        var rng = SeededGenerator(seed: 7)
        for chunks in [[1], [160], [511], [16_000], (0..<40).map { _ in Int.random(in: 1...4_000, using: &rng) }] {
            let rig = try Rig(checks: ["beep": ToneCheck()])
            rig.hear(stream, chunks: chunks)
            #expect(rig.heard == whole.heard, "chunks \(chunks.prefix(3))…: \(rig.summary), not \(whole.summary)")
        }
    }

    /// Over the assistant's own sound an unchecked keyword needs a clear wake word; a checked one
    /// keeps its sensitivity (the check keeps the assistant's voice out).
    @Test func aCheckedKeywordKeepsItsSensitivityOverTheAssistantsOwnSound() throws {
        for checked in [false, true] {
            let rig = try Rig(settings: Hearing.Settings(keywords: ["beep": KeywordSettings(sensitivity: 1)], ownSoundSensitivity: 0),
                              checks: checked ? ["beep": ToneCheck()] : [:])
            rig.hear(HearingTests.audio(0.2))
            let sound = rig.ownOutput.begin(.sound)
            // A soft beep with its ping over the sound.
            var soft = HearingTests.audio(1.3, wakes: [(0.3, 1_000)], loudness: 0.02, wakeLength: 0.4)
            soft = zip(soft, ToneModels.signal(seconds: 1.3, tones: [(0.75, 1_500)], length: 0.06)).map { $0 + $1 }
            rig.hear(soft)
            rig.ownOutput.end(sound)
            rig.hear(HearingTests.audio(2))
            #expect(rig.wakes.count == (checked ? 1 : 0), "checked \(checked): \(rig.summary)")
        }
    }

    @Test func aCheckThatFailsIsReportedAndTheWakeWordCounts() throws {
        let stream = HearingTests.audio(4, wakes: [(0.5, 1_000)], questions: [(1.3, 0.6)])
        let rig = try Rig(checks: ["beep": ToneCheck(failing: true)])
        rig.hear(stream)

        let failures = rig.events.compactMap { if case .checkFailed(_, let reason) = $0 { reason } else { nil } }
        #expect(failures == ["the check's engine is gone"], "\(rig.summary)")
        #expect(rig.wakes.count == 1 && rig.utterances.count == 1, "\(rig.summary)")
    }

    @Test func onlyTheKeywordsWithACheckWaitForOne() throws {
        let stream = HearingTests.audio(6, wakes: [(0.5, 2_000), (3, 1_000)])
        let rig = try Rig(keywords: [("beep", 1_000), ("boop", 2_000)], checks: ["beep": ToneCheck()])
        rig.hear(stream)
        #expect(rig.wakes.map(\.keyword) == ["boop"], "boop unchecked, beep alone rejected: \(rig.summary)")
        #expect(throws: DetectorError.unknownKeyword("bop", known: ["beep"])) {
            try Rig(checks: ["bop": ToneCheck()])
        }
    }

    @Test func inTheFollowUpWindowARejectedWakeWordLeavesTheRatingAlone() throws {
        // A rating at 1 s of the window with a stray beep in it, heard by the check as no wake word.
        let stream = HearingTests.audio(4, wakes: [(1.2, 1_000)], questions: [(1.0, 0.5)])
        let plain = try HearingTests.followingUp(3)
        plain.hearing.openFollowUp()
        plain.hear(stream)
        let rig = try HearingTests.followingUp(3, checks: ["beep": ToneCheck()])
        rig.hearing.openFollowUp()
        rig.hear(stream)

        #expect(plain.followUps.isEmpty && plain.wakes.count == 1, "without the check the beep wakes it: \(plain.summary)")
        #expect(rig.followUps.count == 1 && rig.wakes.isEmpty, "\(rig.summary)")
        let rejected = rig.events.filter { if case .wakeRejected = $0 { true } else { false } }
        #expect(rejected.count == 1)
    }

    @Test func aDetectionWaitingWhenAudioIsLostIsLostWithItAndTheNextIsHeard() throws {
        // A one-second ring; 0.4 s after the detection the reader stalls for two seconds of audio
        // (the audio around the detection is overwritten); the whole wake word again at 4 s.
        let rig = try Rig(ringSeconds: 1, checks: ["beep": ToneCheck()])
        let stream = HearingTests.audio(6, wakes: Self.wakeWord(at: 0.5) + Self.wakeWord(at: 4))
        rig.hear(Array(stream[..<HearingTests.samples(1)]))
        #expect(rig.hearing.isRecording, "waiting for the check")
        rig.ring.write(Array(stream[HearingTests.samples(1)..<HearingTests.samples(3)]))
        rig.drain()
        rig.hear(Array(stream[HearingTests.samples(3)...]))

        #expect(rig.lost == [rig.ring.totalDropped] && rig.ring.totalDropped > 0, "\(rig.summary)")
        let abandoned = rig.events.compactMap { if case .checkAbandoned(let detection) = $0 { detection.time } else { nil } }
        #expect(abandoned.count == 1 && abandoned.allSatisfy { $0 > 0.5 && $0 < 0.6 }, "the waiting one is dropped: \(rig.summary)")
        try #require(rig.wakes.count == 1, "\(rig.summary)")
        let wake = HearingTests.seconds(rig.wakes[0].position)
        #expect(wake > 4 && wake < 4.1, "\(wake) s")
    }
}
