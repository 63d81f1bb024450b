import Foundation
import HotwordCore

/// How training audio is varied, so a model learns the word and not the recording.
public struct AugmentationSettings: Sendable, Hashable {
    /// Share of examples with background noise mixed in, and its signal-to-noise ratio in dB.
    public var noiseProbability: Float = 0.85
    public var snrRange: ClosedRange<Float> = 0...20
    /// Share of examples convolved with a room response; of those, the share using recorded
    /// (large) rooms rather than synthetic small rooms (RT60 0.15–0.7 s).
    public var reverbProbability: Float = 0.5
    public var recordedRoomShare: Float = 0.3
    /// Speed perturbation (tempo and pitch together), as a factor.
    public var speedRange: ClosedRange<Float> = 0.88...1.12
    /// Whether long negative recordings are played at a random speed in `speedRange` too, as
    /// keyword clips are: each speaker heard in more voices (higher, lower, faster, slower), so
    /// the model meets more voices saying other things than its few dozen speakers.
    public var speedPerturbsNegativeAudio = false
    /// Share of examples heard through a random microphone and line (`Channel`): EQ, band
    /// limits, μ-law, clipping. 0 draws no random number, so recipes without it draw as before.
    public var channelProbability: Float = 0
    /// Share of examples whose sound comes out of a device before it reaches the room: a phone
    /// on speaker, a television, a radio, a telephone prompt. The speech alone passes through a
    /// random channel (`Channel`), then the room, the noise and the microphone, which hear the
    /// full band: band-limited speech over full-band noise, as no microphone channel makes it.
    /// 0 draws no random number, so recipes without it draw as before.
    public var playedChannelProbability: Float = 0
    /// Whether keyword windows may be heard through a telephone line (3.4–4 kHz). A wake word
    /// reaches the device through its microphone; speech that comes down a line — a call on
    /// speaker, a telephone prompt, a clip on the television — is never someone waking it. Off,
    /// the keyword's channels take a codec's band instead, and only negatives lose the top bands.
    public var telephoneLinesOnKeywords = true
    /// Speech level, dB relative to full scale (RMS over the speech).
    public var levelRange: ClosedRange<Float> = -42...(-12)
    /// Where a positive window ends relative to the keyword's end, in 10 ms frames.
    public var endJitterFrames: ClosedRange<Int> = -4...10
    /// With a frontend that remembers (PCEN, running mean), the share of keyword and utterance
    /// windows with other speech before the clip, and the pause between them in seconds: the
    /// daemon hears "…turn it off. Computer" too, and those features depend on what came first.
    public var precedingSpeechProbability: Float = 0.5
    public var precedingPause: ClosedRange<Float> = 0.3...1.5
    /// The share of keyword windows heard as the start of a stream: the audio before a point
    /// `streamStartContext` seconds ahead of the word is gone, and the detector's lead-in (copies
    /// of the stream's first frame) stands in for it (docs/training.md, "The start of a stream").
    public var streamStartShare: Float = 0
    public var streamStartContext: ClosedRange<Float> = 0...0.3
    /// SpecAugment: probability, longest time mask (frames), widest frequency mask (bands).
    public var specAugmentProbability: Float = 0.5
    public var maximumTimeMask = 10
    public var maximumFrequencyMask = 6

    public init() {}

    /// Augmentation off: for checks that want clean audio.
    public static var none: AugmentationSettings {
        var settings = AugmentationSettings()
        settings.noiseProbability = 0
        settings.reverbProbability = 0
        settings.speedRange = 1...1
        settings.endJitterFrames = 0...0
        settings.specAugmentProbability = 0
        return settings
    }
}

/// Noise recordings and room responses to draw from.
public struct AugmentationSources: Sendable {
    public var noise: [[Float]]
    public var roomResponses: [[Float]]

    public init(noise: [[Float]], roomResponses: [[Float]]) {
        // Sources differ a lot in level: bring every noise to one RMS before mixing by SNR.
        self.noise = noise.map { Mixing.normalise($0, toRMS: 0.05) }
        self.roomResponses = roomResponses.map(Self.alignedToDirectPath)
    }

    /// Starts a measured response at its strongest tap (the direct sound), so reverberated
    /// speech is not delayed.
    static func alignedToDirectPath(_ response: [Float]) -> [Float] {
        guard let peak = response.indices.max(by: { abs(response[$0]) < abs(response[$1]) }), abs(response[peak]) > 0 else {
            return response
        }
        let scale = 1 / response[peak]
        return response[peak...].prefix(AudioFormat.sampleRate * 2).map { $0 * scale }
    }
}

/// Turns clips into augmented feature windows. One per thread (it owns an FFT convolver and a
/// feature extractor); randomness comes from the generator the caller passes.
final class Augmenter {
    let settings: AugmentationSettings
    let sources: AugmentationSources
    let frontend: FrontendConfig
    let frames: Int
    /// Frames computed before each window and dropped, so a frontend with memory starts the
    /// window as warmed up as in a running stream (0 for frame-by-frame features).
    let contextFrames: Int
    private let extractor: FeatureExtractor
    /// The detector's front end at the start of a stream (a lead-in longer than a played
    /// window), made only for settings with stream starts.
    private let streamStartExtractor: FeatureExtractor?
    private let convolver = FFTConvolver()

    /// Samples in a window of `frames` feature frames.
    var windowSamples: Int { (frames - 1) * frontend.outputFrameShift + frontend.outputFrameLength }
    /// Samples played for a window: its context, then the window.
    var playedSamples: Int { Self.playedSamples(contextFrames: contextFrames, frames: frames, frontend: frontend) }

    private static func playedSamples(contextFrames: Int, frames: Int, frontend: FrontendConfig) -> Int {
        (contextFrames + frames - 1) * frontend.outputFrameShift + frontend.outputFrameLength
    }

    init(settings: AugmentationSettings, sources: AugmentationSources, frontend: FrontendConfig, frames: Int) throws {
        self.settings = settings
        self.sources = sources
        self.frontend = frontend
        self.frames = frames
        contextFrames = Int((frontend.memorySeconds * Double(frontend.sampleRate) / Double(frontend.outputFrameShift)).rounded())
        extractor = try FeatureExtractor(config: frontend)
        let played = Self.playedSamples(contextFrames: contextFrames, frames: frames, frontend: frontend)
        streamStartExtractor = settings.streamStartShare > 0
            ? try FeatureExtractor(config: frontend, leadInFrames: played / frontend.frameShift + 1) : nil
    }

    enum Alignment {
        /// The window ends at the speech end plus the configured jitter (positives, confusables).
        case speechEnd
        /// The window ends part-way into the speech: a keyword not yet complete.
        case partial
    }

    /// A window of `frames` feature frames cut from a clip and augmented; nil if the clip holds no
    /// speech. `precedingSpeech` (negative audio) may be heard before the clip, for a frontend with memory.
    /// `isKeyword`: the window is the keyword, a positive (see `telephoneLinesOnKeywords`).
    func window(from clip: [Float], alignment: Alignment, isKeyword: Bool = false, precedingSpeech: [Float] = [],
                using rng: inout SeededRandom) -> [Float]? {
        let speed = Float.random(in: settings.speedRange, using: &rng)
        guard let bounds = SpeechBounds.find(in: clip) else { return nil }
        // Where the window ends, in the clip's own samples (played `speed` times faster, one
        // output sample spans `speed` clip samples).
        let end: Int
        switch alignment {
        case .speechEnd:
            let jitter = Int.random(in: settings.endJitterFrames, using: &rng) * frontend.frameShift
            end = bounds.end + Int((Float(jitter) * speed).rounded())
        case .partial:
            end = bounds.start + Int(Float(bounds.length) * Float.random(in: 0.15...0.5, using: &rng))
        }
        let played = playedWindow(of: clip, endingAt: end, speed: speed, speech: bounds)
        var window = played.samples
        let speech = played.speech.isEmpty ? 0..<playedSamples : played.speech
        // Drawn only when asked for, so that recipes without it stay reproducible.
        let startsTheStream = isKeyword && settings.streamStartShare > 0 && Float.random(in: 0..<1, using: &rng) < settings.streamStartShare
        if !startsTheStream, contextFrames > 0, !precedingSpeech.isEmpty, Float.random(in: 0..<1, using: &rng) < settings.precedingSpeechProbability {
            addPrecedingSpeech(from: precedingSpeech, to: &window, before: speech, using: &rng)
        }
        augment(&window, speech: speech, isKeyword: isKeyword, using: &rng)
        if startsTheStream {
            let context = Int(Float.random(in: settings.streamStartContext, using: &rng) * Float(frontend.sampleRate))
            return streamStartFeatures(of: Array(window[max(0, speech.lowerBound - context)...]), using: &rng)
        }
        return features(of: window, droppingFrames: contextFrames, using: &rng)
    }

    /// A window of noise or music alone (a stretch of one of `recordings` from a random point,
    /// looped), augmented like speech: at a speech level, in a room, with more noise, through a
    /// channel. A negative: nobody said anything.
    func noiseWindow(from recordings: [[Float]], using rng: inout SeededRandom) -> [Float]? {
        guard let recording = recordings.randomElement(using: &rng), !recording.isEmpty else { return nil }
        let start = Int.random(in: 0..<recording.count, using: &rng)
        var audio = (0..<playedSamples).map { recording[(start + $0) % recording.count] }
        augment(&audio, speech: 0..<audio.count, using: &rng)
        return features(of: audio, droppingFrames: contextFrames, using: &rng)
    }

    /// Mixes a random stretch of `source` into `audio` up to a pause before `speech`, at the
    /// speech's level ± 6 dB.
    func addPrecedingSpeech(from source: [Float], to audio: inout [Float], before speech: Range<Int>, using rng: inout SeededRandom) {
        let pause = Int(Float.random(in: settings.precedingPause, using: &rng) * Float(frontend.sampleRate))
        let length = min(speech.lowerBound - pause, source.count)
        guard length > 0 else { return }
        let start = Int.random(in: 0...(source.count - length), using: &rng)
        let stretch = source[start..<(start + length)]
        let (sourceLevel, speechLevel) = (Mixing.rms(stretch), Mixing.rms(audio[speech]))
        guard sourceLevel > 1e-7, speechLevel > 1e-7 else { return }
        let gain = speechLevel / sourceLevel * pow(10, Float.random(in: -6...6, using: &rng) / 20)
        let offset = speech.lowerBound - pause - length
        for (i, sample) in stretch.enumerated() { audio[offset + i] += gain * sample }
    }

    /// The `playedSamples` samples ending at clip position `end` with the clip played `speed`
    /// times faster (tempo and pitch), and where `speech` falls in them. Outside the clip is silence.
    func playedWindow(of clip: [Float], endingAt end: Int, speed: Float, speech: SpeechBounds) -> (samples: [Float], speech: Range<Int>) {
        // Only the stretch that becomes the window is resampled, plus what the filter reads
        // beyond it: resampling whole clips (up to 6 s for a 1.8 s window) took much of the
        // training time.
        let perturbation = speed == 1 ? nil : SpeedPerturbation(speed: Double(speed))
        let margin = perturbation?.reach ?? 0
        let stretchStart = end - Int((Float(playedSamples) * speed).rounded(.up)) - margin
        var stretch = [Float](repeating: 0, count: end + margin - stretchStart)
        Self.copy(clip, at: stretchStart, into: &stretch)
        let played = perturbation?.apply(stretch) ?? stretch
        // Clip position p is played at (p − stretchStart) / speed.
        let inPlayed = { (clipPosition: Int) in Int((Float(clipPosition - stretchStart) / speed).rounded()) }
        let length = playedSamples
        let windowStart = inPlayed(end) - length
        var window = [Float](repeating: 0, count: length)
        Self.copy(played, at: windowStart, into: &window)
        let inWindow = { (clipPosition: Int) in min(length, max(0, inPlayed(clipPosition) - windowStart)) }
        return (window, inWindow(speech.start)..<inWindow(speech.end))
    }

    /// Up to `count` samples of `source` from `start` on, played `speed` times faster (the
    /// stretch of `source` that becomes them, plus what the filter reads beyond its end).
    func played(_ source: [Float], from start: Int, count: Int, speed: Float) -> [Float] {
        guard speed != 1 else { return Array(source[start..<min(source.count, start + count)]) }
        let perturbation = SpeedPerturbation(speed: Double(speed))
        let end = min(source.count, start + Int((Float(count) * speed).rounded(.up)) + perturbation.reach)
        return Array(perturbation.apply(Array(source[start..<end])).prefix(count))
    }

    /// The speed to play a stretch of negative audio at: 1 unless `speedPerturbsNegativeAudio`
    /// (no random number is drawn then, so recipes without it draw what they always drew).
    func negativeAudioSpeed(using rng: inout SeededRandom) -> Float {
        settings.speedPerturbsNegativeAudio ? Float.random(in: settings.speedRange, using: &rng) : 1
    }

    /// Fills `destination` with `source[offset...]` where that exists (the rest is left as it is).
    private static func copy(_ source: [Float], at offset: Int, into destination: inout [Float]) {
        let overlap = max(0, offset)..<min(source.count, offset + destination.count)
        guard !overlap.isEmpty else { return }
        destination.replaceSubrange((overlap.lowerBound - offset)..<(overlap.upperBound - offset), with: source[overlap])
    }

    /// A device's sound, reverberation, level, noise, the microphone's channel and a faint
    /// microphone floor, in place.
    func augment(_ audio: inout [Float], speech: Range<Int>, isKeyword: Bool = false, using rng: inout SeededRandom) {
        let telephoneLines = settings.telephoneLinesOnKeywords || !isKeyword
        if settings.playedChannelProbability > 0, Float.random(in: 0..<1, using: &rng) < settings.playedChannelProbability {
            Channel.random(sampleRate: frontend.sampleRate, telephoneLines: telephoneLines, using: &rng).apply(&audio)
        }
        if Float.random(in: 0..<1, using: &rng) < settings.reverbProbability {
            let response: [Float]
            if !sources.roomResponses.isEmpty, Float.random(in: 0..<1, using: &rng) < settings.recordedRoomShare {
                response = sources.roomResponses.randomElement(using: &rng)!
            } else {
                response = Mixing.syntheticRoomResponse(rt60: .random(in: 0.15...0.7, using: &rng),
                                                        directToReverberant: .random(in: -3...12, using: &rng), using: &rng)
            }
            audio = Array(convolver.convolve(audio, with: response).prefix(audio.count))
        }
        let level = Mixing.rms(audio[speech])
        if level > 1e-7 {
            let target = pow(10, Float.random(in: settings.levelRange, using: &rng) / 20)
            let gain = target / level
            for i in audio.indices { audio[i] *= gain }
        }
        if !sources.noise.isEmpty, Float.random(in: 0..<1, using: &rng) < settings.noiseProbability {
            let noise = sources.noise.randomElement(using: &rng)!
            Mixing.addNoise(noise, offset: .random(in: 0..<noise.count, using: &rng), to: &audio,
                            snr: .random(in: settings.snrRange, using: &rng), reference: speech)
        }
        if settings.channelProbability > 0, Float.random(in: 0..<1, using: &rng) < settings.channelProbability {
            Channel.random(sampleRate: frontend.sampleRate, telephoneLines: telephoneLines, using: &rng).apply(&audio)
        }
        // Real microphones are never digitally silent.
        let floor = pow(10, Float.random(in: -80...(-60), using: &rng) / 20) * 1.73
        for i in audio.indices { audio[i] = min(1, max(-1, audio[i] + Float.random(in: -floor...floor, using: &rng))) }
    }

    /// Features of a whole signal, `[frames][features]`, without its first `droppingFrames`
    /// (context), with SpecAugment masks.
    func features(of audio: [Float], droppingFrames dropped: Int = 0, using rng: inout SeededRandom) -> [Float] {
        extractor.reset()
        return specAugmented(Array(extractor.frames(of: audio).values.dropFirst(dropped * frontend.featureCount)), using: &rng)
    }

    /// The last `frames` feature frames of a stream that starts with `audio`, as the detector
    /// computes them: its lead-in, then the audio.
    func streamStartFeatures(of audio: [Float], using rng: inout SeededRandom) -> [Float] {
        guard let streamStartExtractor else { preconditionFailure("stream starts asked for with streamStartShare 0") }
        streamStartExtractor.reset()
        return specAugmented(Array(streamStartExtractor.frames(of: audio).values.suffix(frames * frontend.featureCount)), using: &rng)
    }

    /// `values` (`[frames][features]`) with SpecAugment's masks, as often as the settings ask.
    private func specAugmented(_ features: [Float], using rng: inout SeededRandom) -> [Float] {
        var values = features
        let width = frontend.featureCount
        let count = values.count / width
        // SpecAugment masks bands and frames of a spectrogram; an embedding's values are neither.
        if count > 0, frontend.embedding == nil, Float.random(in: 0..<1, using: &rng) < settings.specAugmentProbability {
            // Masks take the utterance's mean value, as silence would be out of place mid-word.
            let mean = values.reduce(0, +) / Float(values.count)
            let timeMask = Int.random(in: 0...settings.maximumTimeMask, using: &rng)
            let t0 = Int.random(in: 0..<count, using: &rng)
            for t in t0..<min(count, t0 + timeMask) { for f in 0..<width { values[t * width + f] = mean } }
            let frequencyMask = Int.random(in: 0...settings.maximumFrequencyMask, using: &rng)
            let f0 = Int.random(in: 0..<width, using: &rng)
            for t in 0..<count { for f in f0..<min(width, f0 + frequencyMask) { values[t * width + f] = mean } }
        }
        return values
    }
}
