import Foundation
import HotwordCore

/// Draws labelled, augmented feature windows from the training data, in parallel and
/// deterministically: each clip's randomness comes from (seed, round, clip), never from timing.
struct ExampleFactory {
    let options: TrainingOptions
    let data: TrainingData
    let frames: Int

    private var width: Int { options.frontend.featureCount }

    /// Weight of a window the model once fired on, relative to an ordinary negative.
    static let hardNegativeWeight: Float = 3
    /// Most windows cut from each second of negative audio in a pool (the shipped models draw
    /// 24,000 from 112 minutes, 3.6 per second).
    static let negativeWindowsPerSecond = 4.0

    /// A fresh training pool.
    func trainingPool(round: Int) throws -> ExamplePool {
        try pool(part: .train, round: round, settings: options.augmentation, positiveVariants: options.positiveVariants,
                 streamWindows: options.negativeWindows)
    }

    /// Fixed (same seed every time) and augmented the way the evaluation is: noise in the middle
    /// half of the training's range (5–15 dB of the default 0–20, around the evaluation's 10 dB).
    func validationPool() throws -> ExamplePool {
        var settings = AugmentationSettings()
        let training = options.augmentation.snrRange, quarter = (training.upperBound - training.lowerBound) / 4
        settings.snrRange = (training.lowerBound + quarter)...(training.upperBound - quarter)
        settings.specAugmentProbability = 0
        settings.speedRange = 0.95...1.05
        return try pool(part: .validation, round: 0, settings: settings, positiveVariants: 3,
                        streamWindows: max(2_000, options.negativeWindows / 6))
    }

    private func pool(part: DataSplit.Part, round: Int, settings: AugmentationSettings, positiveVariants: Int,
                      streamWindows: Int) throws -> ExamplePool {
        enum Job { case positive(Int, variant: Int), utterance(Int), partial(Int), falseAlarm(Int), noiseAlone, stream(Int) }
        let positives = data.positives[part] ?? [], utterances = data.utterances[part] ?? []
        var jobs: [Job] = []
        for clip in positives.indices {
            jobs += (0..<positiveVariants).map { Job.positive(clip, variant: $0) }
            jobs.append(.partial(clip))
        }
        jobs += utterances.indices.map(Job.utterance)
        if part == .train {
            jobs += data.falseAlarms.indices.map(Job.falseAlarm)
            if !data.noiseAlone.isEmpty { jobs += Array(repeating: Job.noiseAlone, count: options.noiseAloneWindows) }
        }
        // Long negative audio is augmented in segments of ~20 s, then cut into windows.
        let stream = data.streams[part] ?? []
        let segmentLength = 20 * options.frontend.sampleRate
        let segments = stream.count / segmentLength + (stream.count % segmentLength > 0 ? 1 : 0)
        jobs += (0..<segments).map(Job.stream)
        // More windows than a few per second of audio would only repeat the same ones (a small
        // personal data set); the shipped models' pools stay below this.
        let seconds = Double(stream.count) / Double(options.frontend.sampleRate)
        let windows = min(streamWindows, Int(seconds * Self.negativeWindowsPerSecond))
        let windowsPerSegment = segments > 0 ? (windows + segments - 1) / segments : 0

        let seed = options.seed &+ (part == .train ? 0 : 0x5EED)
        let sources = data.sources
        let results = ParallelFor.map(jobs.count, threads: options.threads) { index -> ExamplePool in
            let job = jobs[index]
            var rng = SeededRandom.derived(seed: seed &+ UInt64(round) &* 1_000_003, stream: UInt64(index))
            var out = ExamplePool(frames: frames, width: width)
            guard let augmenter = try? Augmenter(settings: settings, sources: sources, frontend: options.frontend, frames: frames) else {
                return out
            }
            switch job {
            case .positive(let clip, _):
                if let window = augmenter.window(from: positives[clip], alignment: .speechEnd, isKeyword: true, precedingSpeech: stream, using: &rng) {
                    out.append(window, label: 1)
                }
            case .partial(let clip):
                if let window = augmenter.window(from: positives[clip], alignment: .partial, precedingSpeech: stream, using: &rng) {
                    out.append(window, label: 0)
                }
            case .utterance(let clip):
                if let window = augmenter.window(from: utterances[clip], alignment: .speechEnd, precedingSpeech: stream, using: &rng) {
                    out.append(window, label: 0)
                }
            case .falseAlarm(let clip):
                if let window = augmenter.window(from: data.falseAlarms[clip], alignment: .speechEnd, precedingSpeech: stream, using: &rng) {
                    out.append(window, label: 0, weight: Self.hardNegativeWeight)
                }
            case .noiseAlone:
                if let window = augmenter.noiseWindow(from: data.noiseAlone, using: &rng) { out.append(window, label: 0) }
            case .stream(let segment):
                // With the audio before the segment as context, so its first windows are warmed up too.
                let start = segment * segmentLength, shift = options.frontend.outputFrameShift
                let speed = augmenter.negativeAudioSpeed(using: &rng)
                let contextStart = max(0, start - Int(Float(augmenter.contextFrames * shift) * speed))
                let context = Int((Float(start - contextStart) / speed).rounded())
                var audio = augmenter.played(stream, from: contextStart, count: context + segmentLength + augmenter.windowSamples, speed: speed)
                augmenter.augment(&audio, speech: 0..<audio.count, using: &rng)
                let features = augmenter.features(of: audio, droppingFrames: context / shift, using: &rng)
                let available = features.count / width - frames
                guard available > 0 else { break }
                for _ in 0..<windowsPerSegment {
                    let t = Int.random(in: 0...available, using: &rng)
                    out.append(Array(features[(t * width)..<((t + frames) * width)]), label: 0)
                }
            }
            return out
        }
        let pool = ExamplePool(combining: results, frames: frames, width: width)
        guard pool.positives > 0 else { throw TrainingError.noAudio(role: "usable keyword (no speech found in any clip)", folders: options.positiveFolders + options.personalFolders) }
        return pool
    }

    /// Runs the model over the training negatives as the daemon would, `miningPasses` times with
    /// fresh augmentation, and returns the windows ending where it fired: the negatives it finds
    /// hardest. A word fires in some noises and not in others, so one pass finds only some of them.
    func hardNegatives(for model: KeywordModel, round: Int) throws -> ExamplePool {
        var out = ExamplePool(frames: frames, width: width)
        for pass in 0..<options.miningPasses {
            try out.append(contentsOf: hardNegatives(for: model, randomStream: UInt64(round) &+ UInt64(pass) &* 1_000))
        }
        return out
    }

    private func hardNegatives(for model: KeywordModel, randomStream: UInt64) throws -> ExamplePool {
        let stream = data.streams[.train] ?? []
        var out = ExamplePool(frames: frames, width: width)
        guard !stream.isEmpty else { return out }
        var rng = SeededRandom.derived(seed: options.seed &+ 0xBAD, stream: randomStream)
        let augmenter = try Augmenter(settings: options.augmentation, sources: data.sources, frontend: options.frontend, frames: frames)
        let segmentLength = 60 * options.frontend.sampleRate
        let threshold: Float = 0.3
        var start = 0
        while start < stream.count {
            var audio = augmenter.played(stream, from: start, count: segmentLength, speed: augmenter.negativeAudioSpeed(using: &rng))
            augmenter.augment(&audio, speech: 0..<audio.count, using: &rng)
            let features = augmenter.features(of: audio, using: &rng)
            let network = StreamingNetwork(model: model)
            var lastTaken = -frames
            features.withUnsafeBufferPointer { values in
                for t in 0..<(features.count / width) {
                    guard let score = network.push(values.baseAddress! + t * width)?.first, t >= frames - 1 else { continue }
                    if score >= threshold, t - lastTaken >= 20 {
                        out.append(Array(values[((t + 1 - frames) * width)..<((t + 1) * width)]), label: 0, weight: Self.hardNegativeWeight)
                        lastTaken = t
                    }
                }
            }
            start += segmentLength
        }
        return out
    }
}
