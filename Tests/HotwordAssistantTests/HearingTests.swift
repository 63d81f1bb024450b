import Foundation
@testable import HotwordAssistant
import HotwordAudio
import HotwordCore
import HotwordTestSupport
import Testing

/// `Hearing` fed from arrays as the listener thread feeds it: the audio goes into a real
/// `SampleRing` (which it reads pre-roll back from), chunk by chunk, with the assistant's real
/// `OwnOutputLog`. Tone models stand in for wake words ("beep" at 1 kHz, "boop" at 2 kHz), a
/// 300 Hz tone for the question.
@Suite("Hearing, from arrays")
struct HearingTests {
    static let rate = AudioFormat.sampleRate

    /// A hearing, its ring and own-sound log, and everything it said.
    final class Rig {
        let ring: SampleRing
        let ownOutput: OwnOutputLog
        var hearing: Hearing
        var events: [HearingEvent] = []
        /// What `drain` reads into: one buffer for the whole test, not one per chunk (once an
        /// assistant has run in this process, a block that large is a fresh mmap each time).
        private var buffer: [Float]

        init(keywords: [(String, Double)] = [("beep", 1_000)], settings: Hearing.Settings = Hearing.Settings(),
             ringSeconds: Double = 30, checks: [String: any DetectionCheck] = [:]) throws {
            let ring = SampleRing(minimumCapacity: Int(ringSeconds * Double(HearingTests.rate)))
            self.ring = ring
            buffer = [Float](repeating: 0, count: ring.capacity)
            ownOutput = OwnOutputLog(capturePosition: { ring.totalWritten })
            hearing = try Self.hearing(keywords, settings, ring, ownOutput, checks: checks)
        }

        static func hearing(_ keywords: [(String, Double)], _ settings: Hearing.Settings, _ ring: SampleRing,
                            _ ownOutput: OwnOutputLog, checks: [String: any DetectionCheck] = [:]) throws -> Hearing {
            try Hearing(models: keywords.map { ToneModels.model(keyword: $0.0, frequency: $0.1) }, settings: settings,
                        audio: ring, ownSound: ownOutput, checks: checks)
        }

        /// Puts `audio` into the ring and hears it, `chunk` samples at a time (the sizes repeat).
        func hear(_ audio: [Float], chunks: [Int] = [512], wakeEnabled: Bool = true) {
            var start = 0, next = 0
            while start < audio.count {
                let end = min(start + chunks[next % chunks.count], audio.count)
                ring.write(Array(audio[start..<end]))
                drain(wakeEnabled: wakeEnabled)
                start = end
                next += 1
            }
        }

        /// Hears what the ring holds and has not been read, as one chunk (however long).
        func drain(wakeEnabled: Bool = true) {
            buffer.withUnsafeMutableBufferPointer { buffer in
                let got = ring.read(into: buffer)
                guard got.count > 0 else { return }
                hearing.hear(UnsafeBufferPointer(rebasing: buffer[..<got.count]), at: got.start, wakeEnabled: wakeEnabled) {
                    events.append($0)
                }
            }
        }

        var wakes: [(keyword: String, position: UInt64)] {
            events.compactMap { if case .wake(let detection, let position) = $0 { (detection.keyword, position) } else { nil } }
        }

        var utterances: [(utterance: Utterance, wake: WakeAudio)] {
            events.compactMap { if case .utterance(let utterance, let wake) = $0 { (utterance, wake) } else { nil } }
        }

        var followUps: [Utterance] {
            events.compactMap { if case .followUp(let utterance) = $0 { utterance } else { nil } }
        }

        var followUpsClosed: [UInt64] {
            events.compactMap { if case .followUpClosed(let position) = $0 { position } else { nil } }
        }

        var lost: [UInt64] {
            events.compactMap { if case .audioLost(let samples) = $0 { samples } else { nil } }
        }

        var flowingAgain: [UInt64] {
            events.compactMap { if case .audioFlowingAgain(let lost) = $0 { lost } else { nil } }
        }

        /// The events that say what was heard (not the thresholds' log lines).
        var heard: [HearingEvent] {
            events.filter { if case .ownSoundHeard = $0 { false } else { true } }
        }

        /// `heard` in short, for messages.
        var summary: [String] {
            heard.map { event in
                switch event {
                case .wake(let detection, let position): "wake \(detection.keyword) at \(position)"
                case .utterance(let utterance, let wake): "utterance of \(utterance.samples.count) to \(wake.positions.upperBound)"
                case .noSpeech(let wake): "no speech until \(wake.positions.upperBound)"
                case .followUp(let utterance): "follow-up of \(utterance.samples.count)"
                default: "\(event)"
                }
            }
        }
    }

    static func samples(_ seconds: Double) -> Int { Int((seconds * Double(rate)).rounded()) }
    static func position(_ seconds: Double) -> UInt64 { UInt64(samples(seconds)) }
    static func seconds(_ position: UInt64) -> Double { Double(position) / Double(rate) }

    /// `seconds` of quiet room with tone bursts: a wake word is a 1 kHz (beep) or 2 kHz (boop)
    /// burst, a question a 300 Hz one (`length` long). A wake word of 60 ms is over when it is
    /// detected (65 to 75 ms after it starts, by the detector's frames), as a spoken one mostly is.
    static func audio(_ seconds: Double, wakes: [(Double, Double)] = [], questions: [(start: Double, length: Double)] = [],
                      loudness: Float = 0.3, wakeLength: Double = 0.06) -> [Float] {
        var samples = ToneModels.signal(seconds: seconds, tones: wakes.map { (start: $0.0, frequency: $0.1) }, length: wakeLength,
                                        amplitude: loudness)
        for question in questions {
            let tone = ToneModels.signal(seconds: seconds, tones: [(question.start, 300)], length: question.length)
            samples = zip(samples, tone).map { $0 + $1 }
        }
        return samples
    }

    /// Wake word at 0.5 s, question from 1.3 s to 1.9 s, quiet until 3.5 s.
    static let oneQuestion = audio(3.5, wakes: [(0.5, 1_000)], questions: [(1.3, 0.6)])

    @Test func aWakeWordAndItsQuestion() throws {
        let rig = try Rig()
        rig.hear(Self.oneQuestion)

        try #require(rig.wakes.count == 1, "\(rig.summary)")
        let wake = Self.seconds(rig.wakes[0].position)
        #expect(wake > 0.5 && wake < 0.6, "the wake word lasts from 0.5 s to 0.56 s; detected at \(wake) s")
        let speechStarts = rig.events.compactMap { if case .speechStarted(let at) = $0 { Self.seconds(at) } else { nil } }
        #expect(speechStarts.count == 1 && abs((speechStarts.first ?? 0) - 1.3) < 0.03, "\(speechStarts)")
        try #require(rig.utterances.count == 1, "\(rig.summary)")
        let (utterance, kept) = rig.utterances[0]
        #expect(utterance.end == .trailingSilence)
        // The pause after the wake word is not in it: from just before the question to 0.8 s after it.
        #expect(utterance.preRollCount == 0)
        #expect(abs(Self.seconds(kept.positions.upperBound) - (1.9 + 0.8)) < 0.03, "ended at \(kept.positions.upperBound)")
        #expect(abs(utterance.duration - (0.6 + 0.8 + UtteranceRecorder.speechLeadSeconds)) < 0.03, "\(utterance.duration) s")
        #expect(kept.keyword == "beep" && kept.detection == rig.wakes[0].position)
        #expect(kept.positions.lowerBound < kept.detection - Self.position(0.5), "the kept audio has the whole wake word")
        #expect(rig.heard.count == 3, "wake, speech start, utterance, nothing more: \(rig.summary)")
    }

    @Test func chunkBoundariesChangeNothingNotEvenAtTheWakeWord() throws {
        let whole = try Rig()
        whole.hear(Self.oneQuestion, chunks: [Self.oneQuestion.count])
        let wake = Int(try #require(whole.wakes.first).position)
        let end = Int(try #require(whole.utterances.first).wake.positions.upperBound)
        var rng = SeededGenerator(seed: 5)
        let chunkings: [[Int]] = [
            [1], [160], [511], [512], [16_000],
            [wake, Self.oneQuestion.count], [wake - 1, 1, Self.oneQuestion.count], [wake + 1, Self.oneQuestion.count],
            [end, Self.oneQuestion.count], [end - 1, 2, Self.oneQuestion.count],
            (0..<40).map { _ in Int.random(in: 1...4_000, using: &rng) },
        ]
        for chunks in chunkings {
            let rig = try Rig()
            rig.hear(Self.oneQuestion, chunks: chunks)
            #expect(rig.heard == whole.heard, "chunks \(chunks.prefix(3))…: \(rig.summary), not \(whole.summary)")
        }
    }

    @Test func speechRunningAcrossTheWakeWordKeepsThePreRollAfterItsLastPause() throws {
        let rig = try Rig()
        // The question starts while the wake word still sounds: said in one breath. The pre-roll
        // is kept from the end of its last pause on: here, a tone as short as 60 ms lies wholly in
        // it, so from the tone's start (a spoken wake word is longer: QuestionStartTests).
        rig.hear(Self.audio(3.5, wakes: [(0.5, 1_000)], questions: [(0.55, 1.0)]))

        try #require(rig.wakes.count == 1 && rig.utterances.count == 1, "\(rig.summary)")
        let (utterance, kept) = rig.utterances[0]
        #expect(abs(Int(kept.detection) - utterance.preRollCount - Self.samples(0.5)) <= 160, "kept from \(Int(kept.detection) - utterance.preRollCount)")
        #expect(utterance.speechStart <= utterance.preRollCount, "speech was already there at the detection")
        #expect(utterance.samples.count == Int(kept.positions.upperBound - kept.detection) + utterance.preRollCount)
        // The pre-roll is the audio before the detection, read back from the ring.
        let detection = Int(kept.detection)
        let stream = Self.audio(3.5, wakes: [(0.5, 1_000)], questions: [(0.55, 1.0)])
        #expect(Array(utterance.samples.prefix(utterance.preRollCount)) == Array(stream[(detection - utterance.preRollCount)..<detection]))
    }

    @Test func aQuestionAndTheNextWakeWordInOneChunkAreHeardInOrderAndOnce() throws {
        // The second wake word follows the first question's end within the same chunk.
        let twice = Self.audio(7, wakes: [(0.5, 1_000), (3.0, 1_000)], questions: [(1.3, 0.6), (3.8, 0.6)])
        let rig = try Rig()
        rig.hear(twice, chunks: [twice.count])

        #expect(rig.wakes.count == 2, "\(rig.summary)")
        #expect(rig.utterances.count == 2)
        if rig.wakes.count == 2, rig.utterances.count == 2 {
            // To the detector's 10 ms frame: it restarted after the first question.
            let apart = Self.seconds(rig.wakes[1].position - rig.wakes[0].position)
            #expect(abs(apart - 2.5) <= 0.01, "the wake words are 2.5 s apart, heard \(apart) s apart")
            #expect(rig.utterances[0].wake.positions.upperBound < rig.wakes[1].position)
            let durations = rig.utterances.map(\.utterance.duration)
            #expect(abs(durations[0] - durations[1]) <= 0.01 + 1e-9, "the same question, the same cut, to a frame: \(durations)")
        }
        let chunked = try Rig()
        chunked.hear(twice)
        #expect(chunked.heard == rig.heard, "\(chunked.summary), not \(rig.summary)")
    }

    @Test func nobodySpeakingGivesUpAfterTheTimeoutAndTheDetectorGoesOn() throws {
        let rig = try Rig()
        rig.hear(Self.audio(9, wakes: [(0.5, 1_000), (5.0, 1_000)]))

        #expect(rig.wakes.count == 2, "\(rig.summary)")
        let gaveUp = rig.events.compactMap { if case .noSpeech(let wake) = $0 { wake } else { nil } }
        #expect(gaveUp.count == 2)
        if let first = gaveUp.first {
            #expect(first.positions.upperBound - first.detection == Self.position(RecordingSettings().noSpeechTimeoutSeconds))
        }
        #expect(rig.utterances.isEmpty, "\(rig.summary)")
    }

    @Test func detectionsAreIgnoredWhileWakingIsOff() throws {
        let rig = try Rig()
        rig.hear(Self.oneQuestion, wakeEnabled: false)
        #expect(rig.heard.isEmpty, "\(rig.summary)")
    }

    @Test func lostAudioIsReportedAndNeverJoined() throws {
        // A one-second ring; the reader stalls for two seconds of audio in the middle.
        let rig = try Rig(ringSeconds: 1)
        let stream = Self.audio(6, wakes: [(4.0, 1_000)])
        rig.hear(Array(stream[..<Self.samples(1)]))
        rig.ring.write(Array(stream[Self.samples(1)..<Self.samples(3)]))
        rig.drain()
        rig.hear(Array(stream[Self.samples(3)...]))

        #expect(rig.ring.totalDropped > 0)
        #expect(rig.lost == [rig.ring.totalDropped])
        // Positions stay those of the stream: the wake word after the gap is where it was said.
        try #require(rig.wakes.count == 1, "\(rig.summary)")
        let wake = Self.seconds(rig.wakes[0].position)
        #expect(wake > 4.0 && wake < 4.1, "\(wake) s")
    }

    @Test func audioLostDuringTheQuestionCountsAsSilence() throws {
        let gapless = try Rig()
        gapless.hear(Self.oneQuestion)
        // The same stream, but the reader stalls during the trailing silence and loses some of it.
        let rig = try Rig(ringSeconds: 1)
        rig.hear(Array(Self.oneQuestion[..<Self.samples(1.95)]))
        rig.ring.write(Array(Self.oneQuestion[Self.samples(1.95)...]))
        rig.drain()

        #expect(rig.lost.count == 1 && rig.lost.first == rig.ring.totalDropped && rig.ring.totalDropped > 0)
        try #require(rig.utterances.count == 1 && gapless.utterances.count == 1, "\(rig.summary)")
        #expect(rig.utterances[0].wake.positions == gapless.utterances[0].wake.positions, "it ends where it would have")
        #expect(rig.utterances[0].utterance.samples.count == gapless.utterances[0].utterance.samples.count)
    }

    @Test func aListenerThatStaysBehindIsOneEpisodeOfLostAudioReportedOnce() throws {
        // An unpaced source: the reader is lapped at every read, for 15 s of audio (three times
        // the 5 s of audio an episode needs to end, had the gaps counted as heard).
        let rig = try Rig(ringSeconds: 1)
        let lap = Self.audio(1.5)
        func lapped() {
            rig.ring.write(lap)
            rig.drain()
        }
        for _ in 0..<10 { lapped() }
        #expect(rig.lost.count == 1, "one report for the episode, not one per gap or per few seconds")
        #expect(rig.flowingAgain.isEmpty, "never 5 s heard without a gap: the episode goes on")

        // Audio flows again: 5 s heard without a gap end the episode, with all it lost.
        rig.hear(Self.audio(5))
        #expect(rig.flowingAgain == [rig.ring.totalDropped])
        // A loss after that is a new episode, reported at once; the stream's end ends it.
        lapped()
        #expect(rig.lost.count == 2)
        rig.hearing.finish { rig.events.append($0) }
        #expect(rig.flowingAgain.count == 2)
        #expect(rig.flowingAgain.reduce(0, +) == rig.ring.totalDropped)
    }

    @Test func itsOwnSoundRaisesTheThresholdsAndItsOwnWakeWordIsIgnored() throws {
        // A soft wake word wakes it normally, but not over its own sound.
        let rig = try Rig(settings: Hearing.Settings(keywords: ["beep": KeywordSettings(sensitivity: 1)], ownSoundSensitivity: 0))
        // A sound plays from 0.2 s to 1.5 s; its tail lasts 0.5 s more.
        rig.hear(Self.audio(0.2))
        let cue = rig.ownOutput.begin(.sound)
        rig.hear(Self.audio(1.3, wakes: [(0.3, 1_000)], loudness: 0.02, wakeLength: 0.4))
        rig.ownOutput.end(cue)
        rig.hear(Self.audio(1.5))
        #expect(rig.wakes.isEmpty, "\(rig.summary)")
        #expect(rig.events.filter { if case .ownSoundHeard = $0 { true } else { false } } == [.ownSoundHeard(true), .ownSoundHeard(false)])
        rig.hear(Self.audio(1.5, wakes: [(0.3, 1_000)], loudness: 0.02, wakeLength: 0.4))
        #expect(rig.wakes.count == 1, "\(rig.summary)")

        // Its own voice saying a wake word: heard, and ignored whatever the thresholds.
        let clear = try Rig(settings: Hearing.Settings(ownSoundSensitivity: 1))
        let answer = clear.ownOutput.begin(.wakeWordSpeech)
        clear.hear(Self.audio(1.5, wakes: [(0.3, 1_000)]))
        clear.ownOutput.end(answer)
        clear.hear(Self.audio(3, wakes: [(1.0, 1_000)]))
        #expect(clear.events.contains { if case .ownWakeWord(let detection) = $0 { detection.keyword == "beep" } else { false } })
        #expect(clear.wakes.count == 1, "the user's wake word after it: \(clear.summary)")
    }

    @Test func newSettingsContinueTheStreamWithoutHearingTheLastWakeWordAgain() throws {
        let rig = try Rig()
        rig.hear(Self.oneQuestion)
        let next = try Rig.hearing([("beep", 1_000), ("boop", 2_000)], Hearing.Settings(), rig.ring, rig.ownOutput)
        next.continueStream(of: rig.hearing)
        rig.hearing = next
        #expect(next.nextPosition == Self.position(3.5))
        rig.hear(Self.audio(3, wakes: [(1.0, 2_000)]))

        #expect(rig.wakes.map(\.keyword) == ["beep", "boop"], "\(rig.summary)")
        if rig.wakes.count == 2 {
            let apart = Self.seconds(rig.wakes[1].position - rig.wakes[0].position)
            #expect(abs(apart - 4.0) < 0.05, "the wake words were said 4 s apart; heard \(apart) s apart")
        }
    }

    // MARK: The follow-up window

    /// Hearing with a follow-up window of `seconds`, after a second of quiet room.
    static func followingUp(_ seconds: Double, ringSeconds: Double = 30, checks: [String: any DetectionCheck] = [:]) throws -> Rig {
        let rig = try Rig(settings: Hearing.Settings(followUp: position(seconds)), ringSeconds: ringSeconds, checks: checks)
        rig.hear(audio(1))
        return rig
    }

    /// A rating said 1 s into the window: half a second of speech.
    static let ratingAfterAnAnswer = audio(4, questions: [(1.0, 0.5)])

    @Test func speechInTheFollowUpWindowIsRecordedWithoutAWakeWordOnce() throws {
        let rig = try Self.followingUp(3)
        rig.hearing.openFollowUp()
        rig.hear(Self.ratingAfterAnAnswer)

        try #require(rig.followUps.count == 1, "\(rig.summary)")
        let rating = rig.followUps[0]
        #expect(rating.end == .trailingSilence && rating.preRollCount == 0)
        // From just before the speech to 0.8 s after it, as a question is cut.
        #expect(abs(rating.duration - (0.5 + 0.8 + UtteranceRecorder.speechLeadSeconds)) < 0.03, "\(rating.duration) s")
        let lead = Self.samples(1.0 - UtteranceRecorder.speechLeadSeconds)
        let start = try #require(rating.samples.firstIndex { abs($0) > 0.1 })
        #expect(abs(start - (Self.samples(1.0) - lead)) < 16, "the speech starts \(start) samples in")
        #expect(rig.heard.count == 1, "no wake word, no question, no speech start: \(rig.summary)")
        #expect(rig.hearing.isRecording == false)

        // The window is used up: more speech is only the room's.
        rig.hear(Self.ratingAfterAnAnswer)
        #expect(rig.heard.count == 1, "\(rig.summary)")
    }

    @Test func nobodySpeakingClosesTheWindowByTheSampleClock() throws {
        let rig = try Self.followingUp(2)
        rig.hearing.openFollowUp()
        #expect(rig.hearing.isRecording, "a reload waits for the window")
        // Speech 2.2 s after the window opened: too late.
        rig.hear(Self.audio(4, questions: [(2.2, 0.5)]), chunks: [700])

        #expect(rig.followUpsClosed == [Self.position(1 + 2)], "opened at 1 s for 2 s: \(rig.summary)")
        #expect(rig.followUps.isEmpty && rig.utterances.isEmpty && rig.wakes.isEmpty, "\(rig.summary)")
        #expect(!rig.hearing.isRecording)
    }

    @Test func aWakeWordInTheWindowIsHeardAsAtAnyOtherTime() throws {
        // A wake word and its question; the same in one breath, the follow-up recording
        // started by the speech before the wake word.
        let streams = [Self.audio(4, wakes: [(0.5, 1_000)], questions: [(1.3, 0.6)]),
                       Self.audio(4, wakes: [(0.5, 1_000)], questions: [(0.3, 1.5)])]
        for stream in streams {
            let plain = try Self.followingUp(3)
            plain.hear(stream)
            let rig = try Self.followingUp(3)
            rig.hearing.openFollowUp()
            #expect(rig.hearing.isRecording, "the window is open")
            rig.hear(stream)

            try #require(plain.wakes.count == 1 && plain.utterances.count == 1, "\(plain.summary)")
            #expect(rig.heard == plain.heard, "\(rig.summary), not \(plain.summary)")
            #expect(rig.followUps.isEmpty && rig.followUpsClosed.isEmpty)
        }
    }

    @Test func chunkBoundariesChangeNothingInTheWindow() throws {
        func heard(_ chunks: [Int]) throws -> Rig {
            let rig = try Self.followingUp(3)
            rig.hearing.openFollowUp()
            rig.hear(Self.ratingAfterAnAnswer + Self.audio(4, wakes: [(0.5, 1_000)]), chunks: chunks)
            return rig
        }
        let whole = try heard([Self.ratingAfterAnAnswer.count * 2])
        #expect(whole.heard.count == 3, "the rating, a wake word after it, nobody speaking after that: \(whole.summary)")
        var rng = SeededGenerator(seed: 11)
        for chunks in [[160], [511], [16_000], (0..<40).map { _ in Int.random(in: 1...4_000, using: &rng) }] {
            let rig = try heard(chunks)
            #expect(rig.heard == whole.heard, "chunks \(chunks.prefix(3))…: \(rig.summary), not \(whole.summary)")
        }
    }

    @Test func itsOwnSoundInTheWindowIsNotSpeech() throws {
        let rig = try Self.followingUp(2)
        rig.hearing.openFollowUp()
        // The answer's echo, or a reminder played meanwhile.
        let sound = rig.ownOutput.begin(.sound)
        rig.hear(Self.audio(1, questions: [(0.2, 0.6)]))
        rig.ownOutput.end(sound)
        rig.hear(Self.audio(1.5))

        #expect(rig.followUps.isEmpty, "\(rig.summary)")
        #expect(rig.followUpsClosed == [Self.position(3)])
    }

    @Test func theWindowStaysShutWhenOffOrWhileAQuestionIsRecorded() throws {
        let off = try Rig()
        off.hear(Self.audio(1))
        off.hearing.openFollowUp()
        off.hear(Self.ratingAfterAnAnswer)
        #expect(off.heard.isEmpty, "\(off.summary)")

        // Asked while the wake word's question is being recorded.
        let plain = try Rig(settings: Hearing.Settings(followUp: Self.position(3)))
        plain.hear(Self.oneQuestion + Self.ratingAfterAnAnswer)
        let busy = try Rig(settings: Hearing.Settings(followUp: Self.position(3)))
        busy.hear(Array(Self.oneQuestion[..<Self.samples(1)]))
        #expect(busy.hearing.isRecording && busy.wakes.count == 1)
        busy.hearing.openFollowUp()
        busy.hear(Array(Self.oneQuestion[Self.samples(1)...]) + Self.ratingAfterAnAnswer)
        #expect(busy.heard == plain.heard, "\(busy.summary), not \(plain.summary)")
        #expect(busy.followUps.isEmpty)
    }

    @Test func lostAudioClosesTheWindow() throws {
        let rig = try Self.followingUp(3, ringSeconds: 1)
        rig.hearing.openFollowUp()
        // Speech all through; the reader stalls from 0.5 s to 2.5 s into the window.
        let stream = Self.audio(4, questions: [(0.3, 3.0)])
        rig.hear(Array(stream[..<Self.samples(0.5)]))
        rig.ring.write(Array(stream[Self.samples(0.5)..<Self.samples(2.5)]))
        rig.drain()
        rig.hear(Array(stream[Self.samples(2.5)...]))

        #expect(rig.lost.count == 1)
        #expect(rig.followUpsClosed == [Self.position(1.5)], "\(rig.summary)")
        #expect(rig.followUps.isEmpty && rig.utterances.isEmpty, "\(rig.summary)")
    }
}
