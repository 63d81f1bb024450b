import Foundation
import HotwordCore

/// The audio a training run draws from, loaded once and split.
struct TrainingData: Sendable {
    /// Keyword clips with their speech bounds, by split part.
    var positives: [DataSplit.Part: [[Float]]]
    /// Short negative utterances (confusable words, other keywords), windows aligned to their end.
    var utterances: [DataSplit.Part: [[Float]]]
    /// Negative audio as one long signal per part, windows cut anywhere.
    var streams: [DataSplit.Part: [Float]]
    var falseAlarms: [[Float]]
    var sources: AugmentationSources
    /// Noise recordings and generated music for windows of noise alone (empty unless asked for).
    var noiseAlone: [[Float]] = []

    /// Generated music in the noise-alone windows: pieces, and seconds each.
    static let musicPieces = 24, musicSeconds = 15

    static func load(_ options: TrainingOptions, report: (TrainingProgress) -> Void) throws -> TrainingData {
        func corpus(_ folders: [String], role: String) throws -> AudioCorpus {
            let corpus = try AudioCorpus(folders: folders, split: options.split)
            if corpus.clips.isEmpty && !folders.isEmpty { throw TrainingError.noAudio(role: role, folders: folders) }
            return corpus
        }
        func bank(_ paths: [String]) -> AudioBank {
            AudioBank.load(paths, threads: options.threads) { report(.status("skipped \($0)")) }
        }
        let positiveCorpus = try corpus(options.positiveFolders, role: "keyword")
        let personal = bank(try corpus(options.personalFolders, role: "personal keyword").clips.map(\.path)).clips
        guard !positiveCorpus.clips.isEmpty || !personal.isEmpty else {
            throw TrainingError.noAudio(role: "keyword", folders: options.positiveFolders + options.personalFolders)
        }
        let negativeCorpus = try corpus(options.negativeFolders, role: "negative")
        let parts: [DataSplit.Part] = [.train, .validation]

        var data = TrainingData(positives: [:], utterances: [:], streams: [:], falseAlarms: [], sources: AugmentationSources(noise: [], roomResponses: []))
        for part in parts {
            data.positives[part] = bank(positiveCorpus.clips(in: part)).clips
            let negatives = bank(negativeCorpus.clips(in: part)).clips
            let utteranceLength = Int(options.utteranceSeconds * Double(options.frontend.sampleRate))
            data.utterances[part] = negatives.filter { $0.count <= utteranceLength }
            // Half a second of quiet between recordings, so windows rarely straddle two at once.
            let gap = [Float](repeating: 0, count: options.frontend.sampleRate / 2)
            data.streams[part] = negatives.reduce(into: [Float]()) { $0 += $1 + gap }
        }
        if options.balancePositiveFolders, options.positiveFolders.count > 1 {
            let folders = try options.positiveFolders.map { bank(try corpus([$0], role: "keyword").clips(in: .train)).clips }
            let repeats = FolderBalance.repeats(clipCounts: folders.map(\.count))
            data.positives[.train] = zip(folders, repeats).flatMap { clips, count in (0..<count).flatMap { _ in clips } }
            report(.status("balanced keyword folders: " + zip(options.positiveFolders, zip(folders, repeats))
                .map { folder, counted in "\(folder) \(counted.0.count) clips × \(counted.1)" }.joined(separator: ", ")))
        }
        if !personal.isEmpty {
            let repeats = personalRepeats(personal: personal.count, others: data.positives[.train]!.count, share: options.personalShare)
            data.positives[.train]! += (0..<repeats).flatMap { _ in personal }
            report(.status("personal: \(personal.count) keyword clips, each drawn \(repeats)× (\(Int((Double(personal.count * repeats) / Double(data.positives[.train]!.count) * 100).rounded())) % of the keyword clips)"))
        }
        // A keyword with no clips in validation (a tiny folder) validates on training clips.
        if data.positives[.validation, default: []].isEmpty { data.positives[.validation] = data.positives[.train] }
        data.falseAlarms = bank(try corpus(options.falseAlarmFolders, role: "false-alarm").clips.map(\.path)).clips
        data.sources = AugmentationSources(
            noise: bank(try corpus(options.noiseFolders, role: "noise").clips.map(\.path)).clips,
            roomResponses: bank(try corpus(options.roomResponseFolders, role: "room response").clips.map(\.path)).clips)

        if options.noiseAloneWindows > 0 {
            var rng = SeededRandom.derived(seed: options.seed, stream: 0x4D55_5349_43)
            let pieces = (0..<musicPieces).map { _ in
                Mixing.normalise(GeneratedNoise.music(samples: musicSeconds * options.frontend.sampleRate, sampleRate: options.frontend.sampleRate, using: &rng), toRMS: 0.05)
            }
            data.noiseAlone = (data.sources.noise + pieces).filter { !$0.isEmpty }
            report(.status("noise alone: \(data.sources.noise.count) noise recordings and \(musicPieces) pieces of generated music, \(options.noiseAloneWindows) windows a pool"))
        }

        let rate = Double(options.frontend.sampleRate)
        for part in parts {
            report(.status("\(part): \(data.positives[part]!.count) keyword clips, \(data.utterances[part]!.count) negative utterances, \(String(format: "%.1f", Double(data.streams[part]!.count) / rate / 60)) min of negative audio"))
        }
        report(.status("augmentation: \(data.sources.noise.count) noise recordings, \(data.sources.roomResponses.count) room responses, \(data.falseAlarms.count) false-alarm clips"))
        return data
    }

    /// How often each personal clip is drawn so that they make up `share` of all keyword clips
    /// (at least once each).
    static func personalRepeats(personal: Int, others: Int, share: Double) -> Int {
        guard personal > 0 else { return 0 }
        return max(1, Int((share / (1 - share) * Double(others) / Double(personal)).rounded()))
    }
}
