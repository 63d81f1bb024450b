import Foundation
import HotwordAssistant
import HotwordAudio
import HotwordCore
import HotwordTestSupport
import Testing

/// The recorder on synthesized audio: quiet noise as the room, loud noise bursts as syllables,
/// fed in capture-sized chunks as the listener feeds it.
@Suite("UtteranceRecorder endpointing")
struct UtteranceRecorderTests {
    static let rate = AudioFormat.sampleRate
    static let chunk = 512

    static func samples(_ seconds: Double) -> Int { Int((seconds * Double(rate)).rounded()) }

    /// Background noise at about -65 dBFS.
    static func room(_ seconds: Double, seed: UInt64 = 1) -> [Float] {
        var generator = SeededGenerator(seed: seed)
        return generator.floats(samples(seconds), scale: 0.001)
    }

    /// `syllables` bursts of loud noise (180 ms) separated by 70 ms of room.
    static func speech(syllables: Int, seed: UInt64 = 2) -> [Float] {
        var generator = SeededGenerator(seed: seed)
        var result: [Float] = []
        for _ in 0..<syllables {
            result += generator.floats(samples(0.18), scale: 0.3)
            result += generator.floats(samples(0.07), scale: 0.001)
        }
        return result
    }

    /// Settings with a pre-roll of 0.3 s (`[recording] pre_roll_ms = 300`; none by default).
    static let preRolled: RecordingSettings = {
        var settings = RecordingSettings()
        settings.preRollSeconds = 0.3
        return settings
    }()

    /// A recorder that has heard a second of the room, started with `preRoll`.
    static func recorder(_ settings: RecordingSettings = preRolled, preRoll: [Float],
                         afterWakeWord: Bool = true) -> UtteranceRecorder {
        let recorder = UtteranceRecorder(settings: settings)
        room(1, seed: 9).withUnsafeBufferPointer { recorder.listen($0) }
        preRoll.withUnsafeBufferPointer { recorder.start(preRoll: $0, afterWakeWord: afterWakeWord) }
        return recorder
    }

    /// What feeding `audio` chunk by chunk gave: statuses in order, and how many samples of
    /// `audio` the recording took.
    static func feed(_ recorder: UtteranceRecorder, _ audio: [Float], ownOutput: (Range<Int>) -> Bool = { _ in false })
        -> (statuses: [RecordingStatus], taken: Int) {
        var statuses: [RecordingStatus] = []
        var start = 0
        while start < audio.count, recorder.isRecording {
            let end = min(start + chunk, audio.count)
            let status = audio[start..<end].withUnsafeBufferPointer { recorder.record($0, ownOutput: ownOutput(start..<end)) }
            statuses.append(status)
            switch status {
            case .finished(_, let consumed), .noSpeech(let consumed):
                return (statuses, start + consumed)
            case .recording, .speechStarted:
                start = end
            }
        }
        return (statuses, start)
    }

    @Test func speechThenSilenceEndsAfterTheTrailingSilence() throws {
        let preRoll = Self.room(0.3, seed: 3)
        let speech = Self.speech(syllables: 4)
        let lastLoud = Self.samples(0.25) + speech.lastIndex { abs($0) > 0.01 }! + 1
        let audio = Self.room(0.25) + speech + Self.room(3)
        let recorder = Self.recorder(preRoll: preRoll)

        let (statuses, taken) = Self.feed(recorder, audio)

        #expect(statuses.filter { $0 == .speechStarted }.count == 1)
        #expect(abs((recorder.speechStartAfterDetection ?? 0) - Self.samples(0.25)) <= 160)
        guard case .finished(let utterance, _)? = statuses.last else {
            Issue.record("no utterance: \(statuses)")
            return
        }
        #expect(utterance.end == .trailingSilence)
        // The user paused after the wake word: the utterance starts just before the speech
        // (frames are 10 ms), without the pre-roll.
        let lead = Int(UtteranceRecorder.speechLeadSeconds * 16_000)
        let first = Self.samples(0.25) - lead
        #expect(utterance.preRollCount == 0)
        #expect(abs(utterance.speechStart - lead) <= 160)
        #expect(abs(utterance.samples.count - (taken - first)) <= 160)
        #expect(Array(utterance.samples.suffix(100)) == Array(audio[(taken - 100)..<taken]))
        // It ends 0.8 s after the last loud sample.
        #expect(abs(taken - (lastLoud + Self.samples(0.8))) <= 2 * 160, "ended \(Double(taken - lastLoud) / 16_000) s after the speech")
        #expect(!recorder.isRecording)
    }

    @Test func aQuestionInTheSameBreathWithoutAPauseStartsAtTheDetection() throws {
        // Speech runs across the detection: the end of the wake word, then the question at once.
        // Without a pause in the pre-roll all of it is the wake word's: left out.
        let preRoll = Self.speech(syllables: 2, seed: 7).suffix(Self.samples(0.3)).map { $0 }
        let audio = Self.speech(syllables: 4) + Self.room(3)
        let (statuses, taken) = Self.feed(Self.recorder(preRoll: preRoll), audio)
        guard case .finished(let utterance, _)? = statuses.last else {
            Issue.record("no utterance: \(statuses)")
            return
        }
        #expect(utterance.preRollCount == 0)
        #expect(utterance.samples == Array(audio.prefix(taken)))
        #expect(utterance.speechStart == 0)
    }

    /// A detector may fire before the wake word has ended: the rest of it, then a pause, then
    /// the question. The utterance starts at the question, without the wake word's end (which a
    /// recogniser would turn into a stray word), however long that end is.
    @Test(arguments: [0.03, 0.2])
    func theWakeWordsEndBeforeAPauseIsNotTheQuestion(tailSeconds: Double) throws {
        let preRoll = Self.speech(syllables: 2, seed: 7).suffix(Self.samples(0.3)).map { $0 }
        var generator = SeededGenerator(seed: 11)
        let tail = generator.floats(Self.samples(tailSeconds), scale: 0.3)
        let questionStart = tail.count + Self.samples(0.25)
        let audio = tail + Self.room(0.25) + Self.speech(syllables: 4) + Self.room(3)
        let recorder = Self.recorder(preRoll: preRoll)

        let (statuses, taken) = Self.feed(recorder, audio)

        #expect(statuses.filter { $0 == .speechStarted }.count == 1)
        #expect(abs((recorder.speechStartAfterDetection ?? 0) - questionStart) <= 160)
        guard case .finished(let utterance, _)? = statuses.last else {
            Issue.record("no utterance: \(statuses)")
            return
        }
        let lead = Int(UtteranceRecorder.speechLeadSeconds * 16_000)
        #expect(utterance.preRollCount == 0)
        #expect(abs(utterance.samples.count - (taken - (questionStart - lead))) <= 160)
        #expect(utterance.samples.prefix(lead - 160).allSatisfy { abs($0) < 0.01 }, "the wake word's end is in the utterance")
    }

    /// A follow-up window or an enrollment take follows no wake word: a short word under way at its
    /// start, then a pause, is the utterance's first word.
    @Test func withoutAWakeWordAShortFirstWordIsKept() throws {
        var generator = SeededGenerator(seed: 11)
        let word = generator.floats(Self.samples(0.2), scale: 0.3)
        let audio = word + Self.room(0.25) + Self.speech(syllables: 4) + Self.room(3)
        let recorder = Self.recorder(preRoll: [], afterWakeWord: false)

        let (statuses, taken) = Self.feed(recorder, audio)

        #expect(recorder.speechStartAfterDetection == 0)
        guard case .finished(let utterance, _)? = statuses.last else {
            Issue.record("no utterance: \(statuses)")
            return
        }
        #expect(utterance.samples == Array(audio.prefix(taken)))
    }

    @Test func noSpeechGivesUpAfterTheTimeoutToTheSample() {
        let recorder = Self.recorder(preRoll: Self.room(0.3))
        let (statuses, taken) = Self.feed(recorder, Self.room(5))
        #expect(statuses.last == .noSpeech(consumed: Self.samples(3) % Self.chunk))
        #expect(taken == Self.samples(3))
        #expect(!statuses.contains(.speechStarted))
    }

    @Test func endlessSpeechStopsAtTheMaximumLength() {
        var settings = Self.preRolled
        settings.maxLengthSeconds = 2
        let recorder = Self.recorder(settings, preRoll: Self.room(0.3))
        let (statuses, taken) = Self.feed(recorder, Self.speech(syllables: 20))
        guard case .finished(let utterance, _)? = statuses.last else {
            Issue.record("no utterance: \(statuses)")
            return
        }
        #expect(utterance.end == .maxLength)
        #expect(taken == Self.samples(2))
        // The room before the detection is a pause: the question starts after it, at the detection.
        #expect(utterance.samples.count == Self.samples(2))
    }

    @Test func theAssistantsOwnCueIsNotTakenForSpeech() {
        // A loud 200 ms tone soon after the detection, as the cue would sound in the room.
        let tone = (0..<Self.samples(0.2)).map { 0.3 * Float(sin(2 * Double.pi * 880 * Double($0) / 16_000)) }
        let audio = Self.room(0.1) + tone + Self.room(4)
        let cueRange = Self.samples(0.1)..<(Self.samples(0.1) + tone.count)

        let marked = Self.feed(Self.recorder(preRoll: []), audio) { $0.overlaps(cueRange) }
        #expect(marked.statuses.last == .noSpeech(consumed: Self.samples(3) % Self.chunk))

        // The same tone, not marked as the assistant's own, would have been a question.
        let unmarked = Self.feed(Self.recorder(preRoll: []), audio)
        #expect(unmarked.statuses.contains(.speechStarted))
    }

    @Test func aClickShorterThanTheMinimumSpeechDoesNotStartTheQuestion() {
        var generator = SeededGenerator(seed: 5)
        let click = generator.floats(Self.samples(0.05), scale: 0.5)
        let (statuses, _) = Self.feed(Self.recorder(preRoll: []), Self.room(0.5) + click + Self.room(4))
        #expect(statuses.last == .noSpeech(consumed: Self.samples(3) % Self.chunk))
    }

    @Test func aShortStreamGivesWhatPreRollThereIsAfterItsPause() {
        // 0.2 s of room (a pause), then the start of the question, and less than the 0.3 s pre-roll in all.
        let preRoll = Self.room(0.2) + [0.1, 0.2, 0.3]
        let recorder = Self.recorder(preRoll: preRoll)
        let (statuses, _) = Self.feed(recorder, Self.speech(syllables: 2) + Self.room(1))
        guard case .finished(let utterance, _)? = statuses.last else {
            Issue.record("no utterance: \(statuses)")
            return
        }
        // From the end of the pause: the last 10 ms frame, which holds the question's start.
        #expect(utterance.preRollCount == VoiceActivityDetector.frameLength)
        #expect(Array(utterance.samples.prefix(utterance.preRollCount)) == Array(preRoll.suffix(VoiceActivityDetector.frameLength)))
    }

    @Test func realSpeechWithPausesBetweenWordsIsKeptWhole() async throws {
        let spoken = try await SpeechFixtures.speech("what is the weather like today")
        let lastLoud = spoken.lastIndex { abs($0) > 0.02 }!
        let (statuses, taken) = Self.feed(Self.recorder(preRoll: []), Self.room(0.2) + spoken + Self.room(2))
        guard case .finished(let utterance, _)? = statuses.last else {
            Issue.record("no utterance: \(statuses)")
            return
        }
        #expect(utterance.end == .trailingSilence)
        let after = Double(taken - Self.samples(0.2) - lastLoud) / 16_000
        #expect(after >= 0.75 && after <= 0.95, "ended \(after) s after the last word")
    }

    /// Real rooms: background noise recordings whose single 10 ms frames dip several dB under
    /// their level (a floor that followed each dip took the noise for speech, and these
    /// questions ran to the maximum length). A real question at −26 dBFS over the noise at
    /// −46 dBFS must end by silence, after the last of it that stands out of the noise.
    @Test(arguments: ["moodist_places_cafe", "moodist_places_restaurant", "moodist_rain_rain-on-tent", "moodist_transport_inside-a-train"])
    func aQuestionInARealNoisyRoomEndsBySilence(noise name: String) throws {
        let data = TestPaths.sharedData
        let question = Self.scaled(try AudioFileReader.read(data.appendingPathComponent("speech/speechocean762/SPEAKER0044_000440005.flac")).samples, toDecibels: -26)
        let before = Self.samples(5), after = Self.samples(4)
        // The recordings fade in: start half a second into one.
        let noise = Self.scaled(Array(try AudioFileReader.read(data.appendingPathComponent("noise/\(name).flac")).samples
            .dropFirst(Self.samples(0.5)).prefix(before + question.count + after)), toDecibels: -46)
        try #require(noise.count == before + question.count + after, "\(name) is too short")
        var audio = noise
        for (index, sample) in question.enumerated() { audio[before + index] += sample }

        let recorder = UtteranceRecorder(settings: RecordingSettings())
        audio[..<before].withUnsafeBufferPointer { recorder.listen($0) }
        let preRoll = Array(audio[(before - recorder.preRollSamples)..<before])
        preRoll.withUnsafeBufferPointer { recorder.start(preRoll: $0) }
        let (statuses, taken) = Self.feed(recorder, Array(audio[before...]))

        guard case .finished(let utterance, _)? = statuses.last else {
            Issue.record("no utterance in \(name): \(statuses.suffix(3))")
            return
        }
        #expect(utterance.end == .trailingSilence, "\(name)")
        // The last 10 ms of the question louder than the noise's mean power.
        let noisePower = Self.meanPower(noise[...])
        let frames = question.count / 160
        let lastAudible = (0..<frames).last { Self.meanPower(question[($0 * 160)..<($0 * 160 + 160)]) > noisePower }! * 160 + 160
        #expect(taken >= lastAudible, "\(name): ended \(Double(lastAudible - taken) / 16_000) s before the question did")
        #expect(taken <= lastAudible + Self.samples(1.2), "\(name): ended \(Double(taken - lastAudible) / 16_000) s after the question")
    }

    static func meanPower(_ samples: ArraySlice<Float>) -> Float {
        samples.reduce(0) { $0 + $1 * $1 } / Float(max(samples.count, 1))
    }

    static func scaled(_ samples: [Float], toDecibels decibels: Float) -> [Float] {
        let gain = pow(10, decibels / 20) / max(meanPower(samples[...]).squareRoot(), 1e-9)
        return samples.map { $0 * gain }
    }
}
