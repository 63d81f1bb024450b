import ArgumentParser
import Foundation
import HotwordCore
import HotwordData
import HotwordModels
import HotwordTraining

/// `hotword train`: a keyword model from recordings, on this machine.
struct TrainCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "train",
        abstract: "Train a wake-word model from recordings of the word and of other speech.",
        discussion: """
            Clips of the keyword (one utterance each), negative speech and sounds, background noise \
            and room responses are split into train/validation/test parts by speaker (see \
            docs/training.md); the test part is left for `hotword eval`. Augmentation (noise at \
            0–20 dB SNR, reverberation, speed, level, SpecAugment) is drawn afresh every few epochs; \
            after training, the model is run over the negative audio and its false alarms are fed \
            back as hard negatives. Deterministic for a given --seed and --threads.
            """)

    @Option(help: "The wake word, as it should be reported (e.g. \"hey susi\").")
    var keyword: String

    @Option(name: .customLong("positives"), help: ArgumentHelp("Folder of keyword clips (repeatable).", valueName: "DIR"))
    var positives: [String]

    @Option(name: .customLong("negatives"), help: ArgumentHelp("Folder of other speech and sounds (repeatable), or the name of a fetched corpus (`hotword data list`); default: every fetched corpus's, see --data-dir.", valueName: "DIR"))
    var negatives: [String] = []

    @Option(name: .customLong("noise"), help: ArgumentHelp("Folder of background noise to mix in (repeatable), or a fetched corpus's name; default: every fetched corpus's.", valueName: "DIR"))
    var noise: [String] = []

    @Option(name: .customLong("rirs"), help: ArgumentHelp("Folder of room impulse responses (repeatable), or a fetched corpus's name; default: every fetched corpus's.", valueName: "DIR"))
    var rirs: [String] = []

    @OptionGroup var fetched: FetchedCorporaOptions

    @Option(name: .customLong("false-alarms"), help: ArgumentHelp("Folder of clips that falsely woke a model (repeatable).", valueName: "DIR"))
    var falseAlarms: [String] = []

    @Option(help: "Random seed: the same seed, data and --threads give the same model.")
    var seed: UInt64 = 1

    @Option(help: "Networks to train side by side on the same example pools (seeds --seed, --seed + 1, … for their weights, batch order and hard negatives) and run as one model whose score is their mean: fewer false alarms and misses, at N times the run time; each network after the first adds about 40 % to the training time.")
    var ensemble = 1

    @Option(help: "Most epochs (early stopping may end sooner).")
    var epochs = 24

    @Option(help: "Stop after this many epochs without a better validation score (raise it when the validation part has few keyword clips, and its score is noisy).")
    var patience = 6

    @Option(help: "Validate and keep a moving average of the weights over about this many epochs (0: the weights as the optimiser leaves them). Steadier early stopping.")
    var averageEpochs: Double = 0

    @Option(help: "Features: log-mel energies; pcen (per-channel energy normalisation instead of the logarithm: cancels stationary noise and loudness); or speech-embedding (the pretrained speech embedding Models/speech_embedding.hwse, with a small head on it: paired with a log-mel model by `hotword ensemble`, as the shipped computer, jarvis and alexa are; about 70 M multiply-adds per second of audio, streamed).")
    var features: FeatureKind = .logMel

    @Option(help: "Channels in every convolution (model size).")
    var channels = 48

    @Option(help: "Dropout after each convolution block while training (regularisation).")
    var dropout: Float = 0

    @Flag(help: "Draw every --positives folder's training clips as often as the largest folder's (each time augmented afresh), e.g. a few hundred recordings of people beside thousands of synthetic clips.")
    var balancePositives = false

    @Flag(help: "Play the long negative recordings at random speeds (tempo and pitch, × 0.88–1.12) as the keyword clips are: more voices than their speakers' saying what is not the keyword.")
    var speedNegatives = false

    @Option(name: .customLong("channels-augmented"), help: ArgumentHelp("Share of examples (keywords and negatives alike) heard through a random microphone and line: low cut, resonances, telephone or codec band limits, μ-law, clipping; so the recording channel stops being a cue.", valueName: "SHARE"))
    var channelsAugmented: Float = 0

    @Option(name: .customLong("played-channels-augmented"), help: ArgumentHelp("Share of examples (keywords and negatives alike) played from a device into the room: the speech alone through a random channel (telephone or codec band, small loudspeaker), the room noise and microphone at full band.", valueName: "SHARE"))
    var playedChannelsAugmented: Float = 0

    @Flag(help: "Keep telephone lines (3.4–4 kHz band limits) off the keyword windows of --channels-augmented and --played-channels-augmented: they take a codec's band instead, and only negatives are heard down a line (a wake word reaches the microphone; a call on speaker or a telephone prompt never means it).")
    var noTelephoneKeywords = false

    @Option(help: ArgumentHelp("Signal-to-noise ratios (dB, over the speech) the background noise is mixed in at, drawn per example from MIN:MAX; the validation pool takes the middle half. Write a negative MIN as --snr-range=-5:15.", valueName: "MIN:MAX"))
    var snrRange = "0:20"

    @Option(help: ArgumentHelp("Share of keyword windows heard as the start of a stream: the audio more than 0–0.3 s before the word is gone, and the detector's lead-in stands in for it (a word said as a stream starts).", valueName: "SHARE"))
    var streamStartShare: Float = 0

    @Option(help: "Windows of noise or music alone (the --noise recordings and generated music) per example pool, as negatives.")
    var noiseWindows = 0

    @Option(help: "Augmented windows per keyword clip per example pool.")
    var positiveVariants = 8

    @Option(help: "Windows cut from negative audio per example pool.")
    var negativeWindows = 24_000

    @Option(help: "Epochs on each example pool before the next is drawn. Drawing is most of the time on --features speech-embedding (every window through the embedding); more epochs a pool there, fewer fresh augmentations.")
    var epochsPerPool = 3

    @Option(help: "Rounds of hard-negative mining after training.")
    var hardNegativeRounds = 1

    @Option(help: "Passes over the negative audio in each hard-negative round, each with fresh noise and rooms (a word may fire in one noise and not another).")
    var miningPasses = 1

    @Option(help: "Worker threads.")
    var threads = ProcessInfo.processInfo.activeProcessorCount

    @Option(name: .customLong("out"), help: ArgumentHelp("Where to write the model (.hwks).", valueName: "MODEL"))
    var output: String

    func validate() throws {
        _ = try Self.decibelRange(snrRange)
        guard (0...1).contains(streamStartShare) else {
            throw ValidationError("--stream-start-share \(streamStartShare): expected a share from 0 to 1")
        }
    }

    func run() throws {
        let negatives = fetched.folders(negatives, for: "--negatives", roles: CorpusRole.negatives)
        guard !negatives.isEmpty else { throw fetched.noNegatives("--negatives") }
        var options = TrainingOptions(keyword: keyword, positiveFolders: positives, negativeFolders: negatives)
        options.noiseFolders = fetched.folders(noise, for: "--noise", roles: [.noise])
        options.roomResponseFolders = fetched.folders(rirs, for: "--rirs", roles: [.rirs])
        options.falseAlarmFolders = falseAlarms
        options.seed = seed
        options.ensembleMembers = ensemble
        options.epochs = epochs
        options.patience = patience
        options.averageEpochs = averageEpochs
        options.channels = channels
        switch features {
        case .logMel: break
        case .pcen: options.frontend.normalisation = .perChannelEnergyDefaults
        case .speechEmbedding:
            do {
                options.frontend = SpeechEmbedding.melFrontend
                options.frontend.embedding = try ModelStore.loadEmbedding()
            } catch {
                throw CommandFailure("--features speech-embedding: \(error)")
            }
        }
        options.dropout = dropout
        options.positiveVariants = positiveVariants
        options.balancePositiveFolders = balancePositives
        options.augmentation.speedPerturbsNegativeAudio = speedNegatives
        options.augmentation.snrRange = try Self.decibelRange(snrRange)
        options.augmentation.streamStartShare = streamStartShare
        options.negativeWindows = negativeWindows
        options.noiseAloneWindows = noiseWindows
        options.augmentation.channelProbability = channelsAugmented
        options.augmentation.playedChannelProbability = playedChannelsAugmented
        options.augmentation.telephoneLinesOnKeywords = !noTelephoneKeywords
        options.epochsPerPool = epochsPerPool
        options.hardNegativeRounds = hardNegativeRounds
        options.miningPasses = miningPasses
        options.threads = threads
        options.command = invokedCommandLine
        let bar = ProgressBar()
        let started = Date()
        let model: KeywordModel
        do {
            model = try Trainer(options: options, progress: bar.show).train()
            try ModelStore.save(model, to: output)
        } catch {
            bar.finishLine()
            throw CommandFailure("\(error)")
        }
        bar.finishLine()
        let minutes = Date().timeIntervalSince(started) / 60
        print("wrote \(output): \(model.parameterCount) parameters, \(format(model.multiplyAddsPerSecond / 1e6, 2)) M multiply-adds per second, trained in \(format(minutes, 1)) min")
    }
}

/// The frontends `hotword train --features` offers (docs/features.md).
enum FeatureKind: String, ExpressibleByArgument, CaseIterable {
    case logMel = "log-mel"
    case pcen
    case speechEmbedding = "speech-embedding"
}

/// Draws training progress on stderr: a bar while an epoch runs, a line when it ends.
final class ProgressBar {
    private let isTerminal = isatty(STDERR_FILENO) == 1
    private var barShown = false

    func show(_ progress: TrainingProgress) {
        switch progress {
        case .status(let text):
            line(text)
        case .batch(let epoch, let done, let total, let loss):
            guard isTerminal else { return }
            let width = 30, filled = width * done / max(total, 1)
            let bar = String(repeating: "█", count: filled) + String(repeating: "·", count: width - filled)
            write("\r\u{1B}[2Kepoch \(epoch) \(bar) \(done)/\(total) loss \(format(Double(loss), 4))")
            barShown = true
        case .epoch(let report):
            line("epoch \(report.epoch)\(report.member.map { ", network \($0)" } ?? ""): loss \(format(Double(report.trainingLoss), 4)), validation loss \(format(Double(report.validationLoss), 4)), "
                + "miss \(format(report.missRate * 100, 1)) % and false alarms \(report.falseAlarms)/\(report.negativeWindows) windows at 0.5, "
                + "miss \(format(report.missRateAtLowFalseAlarms * 100, 1)) % at 0.5 % false windows\(report.improved ? " *" : "")")
        }
    }

    func finishLine() {
        if barShown { write("\r\u{1B}[2K") }
        barShown = false
    }

    private func line(_ text: String) {
        finishLine()
        write(text + "\n")
    }

    private func write(_ text: String) { FileHandle.standardError.write(Data(text.utf8)) }
}

/// This process's command line as a user would type it again, for a model's training record.
var invokedCommandLine: String {
    (["hotword"] + CommandLine.arguments.dropFirst()).map(shellQuoted).joined(separator: " ")
}

/// Quotes an argument for display the way a POSIX shell would need it.
func shellQuoted(_ argument: String) -> String {
    let safe = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%")
    return argument.unicodeScalars.allSatisfy(safe.contains) && !argument.isEmpty ? argument : "'" + argument.replacingOccurrences(of: "'", with: "'\\''") + "'"
}

extension TrainCommand {
    /// "MIN:MAX" in dB, −30 ≤ MIN ≤ MAX ≤ 60.
    static func decibelRange(_ text: String) throws -> ClosedRange<Float> {
        let bounds = text.split(separator: ":", omittingEmptySubsequences: false).map { Float($0) }
        guard bounds.count == 2, let low = bounds[0], let high = bounds[1], -30 <= low, low <= high, high <= 60 else {
            throw ValidationError("--snr-range '\(text)': expected MIN:MAX in dB, −30 ≤ MIN ≤ MAX ≤ 60 (e.g. 0:20, or --snr-range=-5:15)")
        }
        return low...high
    }
}
