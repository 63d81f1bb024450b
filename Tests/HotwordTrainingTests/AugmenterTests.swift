import Foundation
import HotwordAudio
import HotwordCore
import HotwordTestSupport
@testable import HotwordTraining
import Testing

@Suite struct AugmenterTests {
    let frontend = FrontendConfig()
    let frames = 183

    func augmenter() throws -> Augmenter {
        try Augmenter(settings: AugmentationSettings(), sources: AugmentationSources(noise: [], roomResponses: []),
                      frontend: frontend, frames: frames)
    }

    func recording(_ name: String) throws -> [Float] {
        try AudioFileReader.read(TestPaths.sharedData.appendingPathComponent("keywords/\(name)")).samples
    }

    /// What a window cut after resampling the whole clip would hold: the reference that
    /// `playedWindow`, which resamples only the window's stretch, must agree with.
    func referenceWindow(of clip: [Float], endingAt end: Int, speed: Float, length: Int) throws -> [Float] {
        let whole = speed == 1 ? clip : SpeedPerturbation(speed: Double(speed)).apply(clip)
        let windowEnd = Int((Float(end) / speed).rounded())
        return (windowEnd - length..<windowEnd).map { whole.indices.contains($0) ? whole[$0] : 0 }
    }

    /// Mean absolute difference of two signals' log-mel features (natural log units).
    func featureDistance(_ a: [Float], _ b: [Float]) throws -> Float {
        let extractor = try FeatureExtractor(config: frontend)
        let x = extractor.frames(of: a).values
        extractor.reset()
        let y = extractor.frames(of: b).values
        return zip(x, y).map { abs($0 - $1) }.reduce(0, +) / Float(x.count)
    }

    @Test(arguments: [Float(0.88), 0.95, 1.0, 1.12])
    func aSpeedPerturbedWindowMatchesResamplingTheWholeClip(speed: Float) throws {
        let augmenter = try augmenter()
        for name in ["alexa/0.flac", "jarvis/fe73470c-a034-4c6f-ade2-5ed1b0809b6b.flac"] {
            let clip = try recording(name)
            let bounds = try #require(SpeechBounds.find(in: clip))
            let end = bounds.end + 640
            let played = augmenter.playedWindow(of: clip, endingAt: end, speed: speed, speech: bounds)
            #expect(played.samples.count == augmenter.windowSamples)
            let reference = try referenceWindow(of: clip, endingAt: end, speed: speed, length: augmenter.windowSamples)
            let distance = try featureDistance(played.samples, reference)
            // The control: the reference one frame (10 ms) later is what a misplaced cut looks like.
            let misplaced = try referenceWindow(of: clip, endingAt: end + Int(160 * speed), speed: speed, length: augmenter.windowSamples)
            let misplacedDistance = try featureDistance(misplaced, reference)
            #expect(distance < 0.02, "\(name) at speed \(speed): feature distance \(distance)")
            #expect(distance * 20 < misplacedDistance, "\(name): \(distance) against a misplaced cut's \(misplacedDistance)")

            // The speech keeps its place: where the word ends in the played window is where it
            // ends in the reference (the window ends 640 clip samples after the word).
            let speechEndInWindow = augmenter.windowSamples - Int((640 / speed).rounded())
            #expect(abs(played.speech.upperBound - speechEndInWindow) <= 1, "speech end \(played.speech) against \(speechEndInWindow)")
            let expectedLength = Float(bounds.length) / speed
            #expect(abs(Float(played.speech.count) - min(expectedLength, Float(speechEndInWindow))) <= 2)
        }
    }

    @Test func aWindowReachingBeforeTheClipIsSilentThere() throws {
        let augmenter = try augmenter()
        let clip = try recording("alexa/0.flac")
        let bounds = try #require(SpeechBounds.find(in: clip))
        // Ends 0.5 s into the clip: the first 1.33 s of the window lie before the clip.
        let played = augmenter.playedWindow(of: clip, endingAt: 8_000, speed: 1.1, speech: bounds)
        let before = augmenter.windowSamples - Int((8_000 / 1.1 as Float).rounded())
        let leading = played.samples[..<(before - 64)]
        #expect(leading.allSatisfy { $0 == 0 })
        #expect(played.samples[(before + 200)...].contains { $0 != 0 })
    }

    /// PCEN remembers about two seconds: each window's features are computed with that much audio
    /// before it, so they match what the daemon's running extractor has at that point, where a
    /// cold start would not. Log-mel features need no context.
    @Test func aFrontendWithMemoryStartsEachWindowWarmedUp() throws {
        #expect(try augmenter().contextFrames == 0)
        let pcen = FrontendConfig(normalisation: .perChannelEnergyDefaults)
        let augmenter = try Augmenter(settings: .none, sources: AugmentationSources(noise: [], roomResponses: []), frontend: pcen, frames: frames)
        #expect(augmenter.contextFrames == 200)

        // Three people one after another over a noise floor (in digital silence the smoothed
        // energies only decay, and two starts never meet); trimmed so that the played stretch starts on a frame.
        var speech = try ["alexa/0.flac", "computer/04685ec1-bfbf-4c53-a852-60274a74d80e.flac", "jarvis/fe73470c-a034-4c6f-ade2-5ed1b0809b6b.flac"].flatMap(recording)
        speech = Array(speech.prefix((speech.count - 400) / 160 * 160 + 400))
        var floorNoise = SeededRandom(seed: 7)
        for i in speech.indices { speech[i] += Float.random(in: -0.01...0.01, using: &floorNoise) }
        let width = pcen.featureCount
        let running = Array(try FeatureExtractor(config: pcen).frames(of: speech).values.suffix(frames * width))
        var rng = SeededRandom(seed: 1)
        let warm = augmenter.features(of: Array(speech.suffix(augmenter.playedSamples)), droppingFrames: augmenter.contextFrames, using: &rng)
        let cold = augmenter.features(of: Array(speech.suffix(augmenter.windowSamples)), using: &rng)
        func distance(_ a: [Float]) -> Float { zip(a, running).map { abs($0 - $1) }.reduce(0, +) / Float(running.count) }
        #expect(warm.count == running.count)
        // Not zero: after loud speech the smoothed energy of a quiet floor still remembers it
        // for longer than five time constants (it decays in proportion, the gap is 20–40 dB).
        #expect(distance(warm) < 0.01, "warm \(distance(warm))")
        #expect(distance(cold) > 2 * distance(warm), "cold \(distance(cold)), warm \(distance(warm))")
    }

    /// A keyword window heard as a stream's start holds what the detector computes there: the
    /// lead-in's copies of the first frame up to a point at most 0.3 s before the word, then the
    /// audio from there as any window has it.
    @Test func aStreamStartWindowIsTheLeadInThenTheWord() throws {
        var settings = AugmentationSettings.none
        settings.streamStartShare = 1
        let augmenter = try Augmenter(settings: settings, sources: AugmentationSources(noise: [], roomResponses: []), frontend: frontend, frames: frames)
        let clip = try recording("computer/04685ec1-bfbf-4c53-a852-60274a74d80e.flac")
        let bounds = try #require(SpeechBounds.find(in: clip))
        try #require(bounds.start >= 1_600 && bounds.end - bounds.start < 12_000, "a word shorter than the window: \(bounds)")
        let width = frontend.featureCount
        let frame = { (values: [Float], t: Int) in Array(values[(t * width)..<((t + 1) * width)]) }
        let copies = { (values: [Float]) in (0..<values.count / width).prefix { frame(values, $0) == frame(values, 0) }.count }

        var rng = SeededRandom(seed: 5)
        let window = try #require(augmenter.window(from: clip, alignment: .speechEnd, isKeyword: true, using: &rng))
        #expect(window.count == frames * width)
        // The window ends at the word's end; the cut lies 0–0.3 s (0–30 frames) before its start.
        let wordFrames = (bounds.end - bounds.start) / frontend.frameShift
        let leadIn = copies(window)
        #expect(leadIn >= frames - wordFrames - 32 && leadIn <= frames - wordFrames + 2, "lead-in \(leadIn) frames, word \(wordFrames)")

        // After the lead-in, the audio's own frames (log-mel features have no memory).
        let audio = Array(clip[(bounds.start - 1_600)..<bounds.end])
        let started = augmenter.streamStartFeatures(of: audio, using: &rng)
        let own = augmenter.features(of: audio, using: &rng)
        let ownFrames = own.count / width
        #expect(copies(started) >= frames - ownFrames)
        for t in 1..<ownFrames { #expect(frame(started, frames - ownFrames + t) == frame(own, t), "frame \(t)") }
    }

    /// Speech before the clip ends a pause before the clip's speech, at its level ± 6 dB, and
    /// leaves the clip alone.
    @Test func precedingSpeechEndsAPauseBeforeTheClip() throws {
        var settings = AugmentationSettings()
        settings.precedingPause = 0.5...0.5
        let augmenter = try Augmenter(settings: settings, sources: AugmentationSources(noise: [], roomResponses: []),
                                      frontend: FrontendConfig(normalisation: .perChannelEnergyDefaults), frames: frames)
        let speech = 32_000..<40_000
        var audio = [Float](repeating: 0, count: 48_000)
        for i in speech { audio[i] = 0.1 * sin(Float(i) * 0.3) }
        let original = audio
        var rng = SeededRandom(seed: 3)
        augmenter.addPrecedingSpeech(from: try recording("computer/04685ec1-bfbf-4c53-a852-60274a74d80e.flac"), to: &audio, before: speech, using: &rng)

        let pauseStart = speech.lowerBound - 8_000
        #expect(audio[pauseStart..<speech.lowerBound].allSatisfy { $0 == 0 })
        #expect(Array(audio[speech.lowerBound...]) == Array(original[speech.lowerBound...]))
        let ratio = Mixing.rms(audio[..<pauseStart]) / Mixing.rms(audio[speech])
        #expect(ratio > 0.01, "speech before the pause: level ratio \(ratio)")
        // The stretch holds the recording's pauses too, so its level over the stretch can sit
        // below the clip's; it is never above +6 dB.
        #expect(ratio < 2.01)
    }

    /// Negative recordings are played at a random speed only when asked, and recipes that do not
    /// ask draw exactly the random numbers they drew before (their models stay reproducible).
    @Test func negativeAudioChangesSpeedOnlyWhenAsked() throws {
        var rng = SeededRandom(seed: 5), untouched = rng
        #expect(try augmenter().negativeAudioSpeed(using: &rng) == 1)
        #expect(rng.next() == untouched.next())

        var settings = AugmentationSettings()
        settings.speedPerturbsNegativeAudio = true
        let perturbing = try Augmenter(settings: settings, sources: AugmentationSources(noise: [], roomResponses: []), frontend: frontend, frames: frames)
        let speeds = (0..<50).map { _ in perturbing.negativeAudioSpeed(using: &rng) }
        #expect(speeds.allSatisfy(settings.speedRange.contains))
        #expect(speeds.min()! < 0.95 && speeds.max()! > 1.05)
    }

    /// `--played-channels-augmented`: a device's channel is on the sound it plays alone; the room's
    /// noise reaches the microphone at full band. A telephone band limit then leaves the noise's
    /// 7 kHz over speech that lost its 6 kHz, where a microphone's channel
    /// (`--channels-augmented`) cuts both.
    @Test func aPlayedChannelBandLimitsTheSpeechNotTheRoomNoise() throws {
        let speech = zip(ToneMeasure.tone(hertz: 500, amplitude: 0.2), ToneMeasure.tone(hertz: 6_000, amplitude: 0.2)).map { $0 + $1 }
        // Amplitudes at 6 and 7 kHz relative to 500 Hz after augmenting with 60 seeds.
        func augmented(played: Float, microphone: Float) throws -> [(sixKilohertz: Double, sevenKilohertz: Double)] {
            var settings = AugmentationSettings()
            settings.reverbProbability = 0
            settings.noiseProbability = 1
            settings.snrRange = 0...0
            settings.playedChannelProbability = played
            settings.channelProbability = microphone
            let augmenter = try Augmenter(settings: settings, sources: AugmentationSources(noise: [ToneMeasure.tone(hertz: 7_000)], roomResponses: []),
                                          frontend: frontend, frames: frames)
            return (0..<60).map { seed in
                var rng = SeededRandom(seed: UInt64(seed)), audio = speech
                augmenter.augment(&audio, speech: audio.indices, using: &rng)
                let base = ToneMeasure.amplitude(of: audio, at: 500)
                return (ToneMeasure.amplitude(of: audio, at: 6_000) / base, ToneMeasure.amplitude(of: audio, at: 7_000) / base)
            }
        }
        // About one channel in seven has a telephone band (3.4–4 kHz), which takes 6 kHz down by over 30 dB.
        let played = try augmented(played: 1, microphone: 0).filter { $0.sixKilohertz < 0.03 }
        #expect(played.count >= 3)
        #expect(played.allSatisfy { $0.sevenKilohertz > 0.3 }, "\(played)")
        let microphone = try augmented(played: 0, microphone: 1).filter { $0.sixKilohertz < 0.03 }
        #expect(microphone.count >= 3)
        #expect(microphone.allSatisfy { $0.sevenKilohertz < 0.03 }, "\(microphone)")
        // Without either, the speech keeps its 6 kHz.
        #expect(try augmented(played: 0, microphone: 0).allSatisfy { abs($0.sixKilohertz - 1) < 0.05 })
    }

    /// `telephoneLinesOnKeywords = false`: a negative may still come down a telephone line, the
    /// keyword never does (its 5 kHz is kept by every channel but a few deep dips).
    @Test func keywordsAreKeptOffTelephoneLinesWhenAsked() throws {
        let speech = zip(ToneMeasure.tone(hertz: 500, amplitude: 0.2), ToneMeasure.tone(hertz: 5_000, amplitude: 0.2)).map { $0 + $1 }
        var settings = AugmentationSettings()
        settings.reverbProbability = 0
        settings.noiseProbability = 0
        settings.channelProbability = 1
        settings.playedChannelProbability = 0.5
        settings.telephoneLinesOnKeywords = false
        let augmenter = try Augmenter(settings: settings, sources: AugmentationSources(noise: [], roomResponses: []),
                                      frontend: frontend, frames: frames)
        // 5 kHz relative to 500 Hz, for 100 seeds: a telephone line (3.4–4 kHz, fourth order) takes
        // it down by more than 20 dB; a codec's band (5.5–7.5 kHz) and one ±10 dB resonance do not.
        func lineCut(isKeyword: Bool) -> Int {
            (0..<100).filter { seed in
                var rng = SeededRandom(seed: UInt64(seed)), audio = speech
                augmenter.augment(&audio, speech: audio.indices, isKeyword: isKeyword, using: &rng)
                return ToneMeasure.amplitude(of: audio, at: 5_000) / ToneMeasure.amplitude(of: audio, at: 500) < 0.1
            }.count
        }
        #expect(lineCut(isKeyword: false) >= 10)
        #expect(lineCut(isKeyword: true) <= 2)
    }

    /// A stretch of a long recording played at another speed is that stretch of the whole
    /// recording played at that speed, to its last sample (the filter reads on past its end).
    @Test func aStretchPlayedAtASpeedMatchesPlayingTheWholeRecording() throws {
        let augmenter = try augmenter()
        let recording = try recording("computer/04685ec1-bfbf-4c53-a852-60274a74d80e.flac")
        #expect(augmenter.played(recording, from: 7_000, count: 16_000, speed: 1) == Array(recording[7_000..<23_000]))

        // At 7/8 speed, input 7 000 is output 8 000 of the whole, on the same filter phases.
        let played = augmenter.played(recording, from: 7_000, count: 16_000, speed: 0.875)
        let whole = SpeedPerturbation(speed: 0.875).apply(recording)
        #expect(played.count == 16_000)
        let reach = SpeedPerturbation(speed: 0.875).reach
        let worst = (2 * reach..<16_000).map { abs(played[$0] - whole[8_000 + $0]) }.max()!
        #expect(worst < 1e-6, "largest difference \(worst)")
        // Near the recording's end there is less to play.
        let tail = augmenter.played(recording, from: recording.count - 1_400, count: 16_000, speed: 0.875)
        #expect(tail.count == 1_600)
    }
}
