import Foundation
import HotwordAudio
import HotwordCore
import HotwordModels

/// What an enrollment reports while it works.
public enum EnrollmentProgress: Sendable {
    /// A new stage begins ("synthetic voices", "training", "tuning").
    case stage(String)
    case synthesis(SynthesisProgress)
    case training(TrainingProgress)
}

/// What an enrollment made, and the figures it measured.
public struct EnrollmentReport: Sendable {
    public var model: KeywordModel
    public var trainedTakes: [String]
    public var heldOutTakes: [String]
    /// Kept synthetic clips by kind, and whether an earlier run's clips were reused.
    public var syntheticKeywordClips: Int
    public var syntheticConfusableClips: Int
    public var syntheticSentenceClips: Int
    public var syntheticReused: Bool
    /// The operating point chosen on the held-out takes and negatives.
    public var operatingPoint: OperatingPoint
    /// Minutes of held-out negative speech the threshold was tuned on.
    public var tuningMinutes: Double
    public var synthesisSeconds: Double
    public var trainingSeconds: Double
}

/// Makes a personal model from a few takes of the user's own voice: synthetic clips of the
/// phrase and of confusable phrases and sentences from every local voice (kept in the
/// enrollment folder and reused while the settings stay the same), training with the user's
/// takes weighted up and heavily augmented, then a threshold tuned for a false-alarm target on
/// held-out takes and held-out negatives, and the model saved atomically with a record of it all.
public struct Enrollment: Sendable {
    public let options: EnrollmentOptions

    public init(options: EnrollmentOptions) {
        self.options = options
    }

    public func run(progress: @escaping @Sendable (EnrollmentProgress) -> Void = { _ in }) throws(EnrollmentError) -> EnrollmentReport {
        try options.validate()
        let takes = try options.folder.takeFiles()
        guard takes.count >= EnrollmentOptions.minimumTakes else {
            throw .notEnoughTakes(have: takes.count, need: EnrollmentOptions.minimumTakes, folder: options.folder.takes.path)
        }
        let heldOut = takes.count >= options.heldOutEvery
            ? takes.indices.filter { ($0 + 1) % options.heldOutEvery == 0 }.map { takes[$0] } : []
        let trained = takes.filter { !heldOut.contains($0) }

        progress(.stage("synthetic voices"))
        let synthesisStarted = Date()
        let synthetic = try syntheticClips(progress: progress)
        let synthesisSeconds = Date().timeIntervalSince(synthesisStarted)

        progress(.stage("training"))
        let trainingStarted = Date()
        let training = try trainingOptions(takes: trained, synthetic: synthetic)
        let model: KeywordModel
        do {
            model = try Trainer(options: training) { progress(.training($0)) }.train()
        } catch {
            throw .training("\(error)")
        }
        let trainingSeconds = Date().timeIntervalSince(trainingStarted)

        progress(.stage("tuning"))
        // Everyday speech sets the operating point; confusable phrases only sharpen training
        // (tuned on them, the threshold would be set by near-homophones a room rarely hears).
        let stream = try tuningStream(heldOut: heldOut, negatives: synthetic.folders(.speech) + options.negativeFolders,
                                      noise: training.noiseFolders, split: training.split, seed: training.seed)
        var (result, chosen) = try tune(model, on: stream)
        result.training.data.append("takes: \(trained.count) trained on (\(trained.map(\.lastPathComponent).joined(separator: ", "))), "
            + "\(heldOut.count) held out for tuning (\(heldOut.map(\.lastPathComponent).joined(separator: ", ")))")
        result.training.data.append("synthetic (\(options.folder.synthetic.path)): \(synthetic.kept[.positive] ?? 0) keyword, "
            + "\(synthetic.kept[.confusable] ?? 0) confusable and \(synthetic.kept[.speech] ?? 0) sentence clips")
        result.training.data.append("tuned on: \(heldOut.count) held-out takes and \(String(format: "%.1f", stream.negativeDuration / 60)) min of held-out speech, noise at 10 dB SNR")
        result.training.figures.merge([
            "takes_trained": Double(trained.count), "takes_held_out": Double(heldOut.count),
            "held_out_takes_missed": Double(chosen.misses),
            "synthetic_keyword_clips": Double(synthetic.kept[.positive] ?? 0),
            "synthetic_confusable_clips": Double(synthetic.kept[.confusable] ?? 0),
            "synthetic_sentence_clips": Double(synthetic.kept[.speech] ?? 0),
            "tuning_negative_minutes": stream.negativeDuration / 60,
            "tuning_false_alarms_per_hour": chosen.falseAlarmsPerHour,
            "training_minutes": trainingSeconds / 60,
        ]) { $1 }
        do {
            try ModelStore.save(result, to: options.output)
        } catch {
            throw .model(error)
        }
        return EnrollmentReport(
            model: result, trainedTakes: trained.map(\.path), heldOutTakes: heldOut.map(\.path),
            syntheticKeywordClips: synthetic.kept[.positive] ?? 0, syntheticConfusableClips: synthetic.kept[.confusable] ?? 0,
            syntheticSentenceClips: synthetic.kept[.speech] ?? 0, syntheticReused: synthetic.reused,
            operatingPoint: chosen, tuningMinutes: stream.negativeDuration / 60,
            synthesisSeconds: synthesisSeconds, trainingSeconds: trainingSeconds)
    }

    /// The training recipe with the data filled in: the takes as personal clips, the synthetic
    /// clips, the reversed takes and the user's negatives, and every noise there is.
    private func trainingOptions(takes: [URL], synthetic: SyntheticClips) throws(EnrollmentError) -> TrainingOptions {
        var training = options.training
        training.keyword = options.keyword
        training.personalFolders = takes.map(\.path)
        training.positiveFolders = synthetic.folders(.positive)
        try options.folder.saveReversed(takes)
        training.negativeFolders = synthetic.folders(.confusable) + synthetic.folders(.speech) + options.negativeFolders
            + [options.folder.reversedTakes.path]
        training.noiseFolders = try noiseFolders(speech: synthetic.folders(.speech), split: training.split, seed: training.seed)
        training.command = options.command
        return training
    }

    /// Tunes the threshold on `stream` (`Tuning`), but never below the training's own estimate
    /// (the score 0.2 % of validation windows reach): minutes of speech cannot show that a
    /// threshold is safe for hours. Returns the model and its operating point on the stream.
    private func tune(_ model: KeywordModel, on stream: EvaluationStream) throws(EnrollmentError) -> (KeywordModel, OperatingPoint) {
        let trainingThreshold = model.detection.sensitivityMap.threshold(forSensitivity: 0.5)
        do {
            let trace = try ScoreTrace(model, stream: stream)
            var tuned = try Tuning.tune(model, over: trace, target: options.targetFalseAlarmsPerHour).model
            let map = tuned.detection.sensitivityMap
            let threshold = max(map.threshold(forSensitivity: 0.5), trainingThreshold)
            tuned.detection.sensitivityMap = Tuning.sensitivityMap(strict: map.threshold(forSensitivity: 0), middle: threshold,
                                                                   lenient: map.threshold(forSensitivity: 1))
            tuned.training.figures["tuned_threshold"] = Double(threshold)
            return (tuned, try Evaluation.thresholdSweep(tuned, over: trace, thresholds: [threshold])[0])
        } catch {
            throw .training("tuning: \(error)")
        }
    }

    /// The kept synthetic clips: an earlier run's when it was made with the same settings, else new.
    private func syntheticClips(progress: @escaping @Sendable (EnrollmentProgress) -> Void) throws(EnrollmentError) -> SyntheticClips {
        let folder = options.folder.synthetic
        let stampURL = folder.appendingPathComponent(SynthesisStamp.fileName)
        let stamp = SynthesisStamp(phrase: options.keyword, clips: options.syntheticClips, seed: options.training.seed,
                                   engines: options.engines.map { $0.map(\.rawValue).sorted() })
        let manifest = folder.appendingPathComponent(Manifest.fileName)
        if (try? JSONDecoder().decode(SynthesisStamp.self, from: Data(contentsOf: stampURL))) == stamp,
           let entries = try? Manifest.read(manifest) {
            progress(.synthesis(.status("reusing the synthetic clips in \(folder.path)")))
            return SyntheticClips(root: folder, entries: entries, reused: true)
        }
        // Removed first, so an interrupted run is never taken for a finished one.
        try? FileManager.default.removeItem(at: stampURL)
        var synthesis = SynthesisOptions(phrase: options.keyword, outputDirectory: folder)
        synthesis.negatives = true
        synthesis.maximumClips = options.syntheticClips
        synthesis.seed = options.training.seed
        synthesis.jobs = options.training.threads
        synthesis.engines = options.engines
        let report: SynthesisReport
        do {
            report = try Synthesizer(options: synthesis).run { progress(.synthesis($0)) }
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            try encoder.encode(stamp).write(to: stampURL, options: .atomic)
        } catch let error as SynthesisError {
            throw .synthesis(error)
        } catch {
            throw .folder(path: stampURL.path, reason: (error as NSError).localizedDescription)
        }
        return SyntheticClips(root: folder, entries: report.entries, reused: false)
    }

    /// Seconds of each generated noise.
    static let generatedNoiseSeconds = 20

    /// The user's noise folders, the room recorded during enrollment, and generated noise
    /// (white, pink, brown, and babble made of the training part of the synthetic sentences).
    private func noiseFolders(speech: [String], split: DataSplit, seed: UInt64) throws(EnrollmentError) -> [String] {
        let room = try options.folder.backgroundFiles()
        var rng = SeededRandom(seed: seed &+ 0x0015E)
        let count = Self.generatedNoiseSeconds * AudioFormat.sampleRate
        try options.folder.saveGeneratedNoise(GeneratedNoise.white(samples: count, using: &rng), name: "white")
        try options.folder.saveGeneratedNoise(GeneratedNoise.pink(samples: count, using: &rng), name: "pink")
        try options.folder.saveGeneratedNoise(GeneratedNoise.brown(samples: count, using: &rng), name: "brown")
        let sentences: AudioBank
        do {
            sentences = AudioBank.load(try AudioCorpus(folders: speech, split: split).clips(in: .train), threads: options.training.threads)
        } catch {
            throw .training("\(error)")
        }
        if !sentences.clips.isEmpty {
            try options.folder.saveGeneratedNoise(GeneratedNoise.babble(samples: count, from: sentences.clips, using: &rng), name: "babble")
        }
        return options.noiseFolders + (room.isEmpty ? [] : [options.folder.background.path]) + [options.folder.generatedNoise.path]
    }

    /// Held-out takes spread through the negatives not trained on (validation and test parts),
    /// with noise at 10 dB SNR when there is any: what the threshold is tuned on.
    private func tuningStream(heldOut: [URL], negatives: [String], noise: [String], split: DataSplit,
                              seed: UInt64) throws(EnrollmentError) -> EvaluationStream {
        func bank(_ paths: [String]) -> AudioBank { AudioBank.load(paths, threads: options.training.threads) }
        let corpus: AudioCorpus
        let noiseCorpus: AudioCorpus
        do {
            corpus = try AudioCorpus(folders: negatives, split: split)
            noiseCorpus = try AudioCorpus(folders: noise, split: split)
        } catch {
            throw .training("tuning data: \(error)")
        }
        let held = bank(corpus.clips.filter { $0.split != .train }.map(\.path))
        let takes = bank(heldOut.map(\.path))
        if takes.clips.count < heldOut.count {
            let missing = heldOut.map(\.path).filter { !takes.paths.contains($0) }
            throw .unreadableTake(path: missing[0], reason: "cannot be read")
        }
        let noiseClips = bank(noiseCorpus.clips.map(\.path)).clips
        return EvaluationStream(positives: takes.clips, negatives: held.clips, negativeNames: held.paths, noise: noiseClips,
                                snr: noiseClips.isEmpty ? nil : 10, seed: seed)
    }
}

/// The settings synthetic clips were made with, stored beside them so a later enrollment with
/// the same settings reuses them.
struct SynthesisStamp: Codable, Equatable {
    static let fileName = "enrollment-synthesis.json"
    var phrase: String
    var clips: Int
    var seed: UInt64
    var engines: [String]?
}

/// Synthetic clips on disk, from their manifest.
struct SyntheticClips {
    var root: URL
    var kept: [ClipKind: Int]
    var reused: Bool

    init(root: URL, entries: [ManifestEntry], reused: Bool) {
        self.root = root
        self.reused = reused
        kept = entries.filter(\.kept).reduce(into: [:]) { $0[$1.kind, default: 0] += 1 }
    }

    /// The folder of a kind, if it holds any kept clip.
    func folders(_ kind: ClipKind) -> [String] {
        (kept[kind] ?? 0) > 0 ? [root.appendingPathComponent(kind.rawValue).path] : []
    }
}
