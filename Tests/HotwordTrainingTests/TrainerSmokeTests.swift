import Foundation
import HotwordAudio
import HotwordCore
import HotwordTestSupport
@testable import HotwordTraining
import Testing

/// Speech from the real espeak-ng engine, written as WAV files.
enum Espeak {
    static func speak(_ text: String, voice: String, rate: Int, to path: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/espeak-ng")
        process.arguments = ["-v", voice, "-s", "\(rate)", "-w", path, text]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "espeak-ng \(voice) '\(text)'")
    }
}

@Suite final class TrainerSmokeTests {
    /// A fresh folder for each test's clips, removed after it.
    let folder: URL

    init() throws { folder = try TestPaths.temporaryDirectory("trainer") }
    deinit { try? FileManager.default.removeItem(at: folder) }

    /// Six espeak-ng voices saying "hey susi" and six saying other sentences, and options for a
    /// tiny model that trains on them in seconds.
    static func tinyTraining(in folder: URL) throws -> TrainingOptions {
        let positives = folder.appendingPathComponent("positives"), negatives = folder.appendingPathComponent("negatives")
        try FileManager.default.createDirectory(at: positives, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: negatives, withIntermediateDirectories: true)
        let voices = ["en+m1", "en+m3", "en+f2", "en-us", "en+f4", "en-us+m2"]
        for (index, voice) in voices.enumerated() {
            try Espeak.speak("hey susi", voice: voice, rate: 140 + 10 * index, to: positives.appendingPathComponent("\(index).wav").path)
        }
        for (index, text) in ["good morning everyone", "the weather is nice today", "please open the window",
                              "seven eight nine", "hello there", "what a lovely day"].enumerated() {
            try Espeak.speak(text, voice: voices[index], rate: 160, to: negatives.appendingPathComponent("\(index).wav").path)
        }
        var options = TrainingOptions(keyword: "hey susi", positiveFolders: [positives.path], negativeFolders: [negatives.path])
        options.split = DataSplit(validationFraction: 0, testFraction: 0)
        options.epochs = 6
        options.patience = 6
        options.channels = 8
        options.positiveVariants = 6
        options.negativeWindows = 120
        options.epochsPerPool = 6
        options.hardNegativeRounds = 0
        options.learningRate = 5e-3
        options.augmentation.noiseProbability = 0
        options.augmentation.reverbProbability = 0
        return options
    }

    /// Trains with `options`, keeping what the trainer reported.
    static func train(_ options: TrainingOptions) throws -> (model: KeywordModel, epochs: [EpochReport], statuses: [String]) {
        var epochs: [EpochReport] = [], statuses: [String] = []
        let model = try Trainer(options: options) {
            switch $0 {
            case .epoch(let report): epochs.append(report)
            case .status(let text): statuses.append(text)
            case .batch: break
            }
        }.train()
        return (model, epochs, statuses)
    }

    /// A tiny model on a few synthetic clips: the loss falls and it hears its own phrase, with
    /// log-mel features and with PCEN (stored in the model, so the detector computes the same).
    @Test(arguments: [FeatureNormalisation.none, .perChannelEnergyDefaults])
    func lossFallsAndTheModelDetectsItsTrainingPhrase(normalisation: FeatureNormalisation) throws {
        var options = try Self.tinyTraining(in: folder)
        options.frontend.normalisation = normalisation
        let positives = URL(fileURLWithPath: options.positiveFolders[0])
        let (model, epochs, _) = try Self.train(options)

        #expect(epochs.count == 6)
        #expect(epochs.last!.trainingLoss < epochs.first!.trainingLoss * 0.7, "losses \(epochs.map(\.trainingLoss))")
        #expect(model.keywords == ["hey susi"])
        #expect(model.training.seed == 1)
        #expect(model.frontend.normalisation == normalisation)

        try Self.expectDetections(by: model, of: positives.appendingPathComponent("0.wav"))
    }

    /// `--features speech-embedding`: a head on the pretrained embedding (Models/), which the
    /// model file carries, so the detector computes the same embeddings to score it. Two heads
    /// side by side (`--ensemble 2`), as the recipes of jarvis and alexa train them.
    @Test func aHeadTrainsOnTheSpeechEmbedding() throws {
        var options = try Self.tinyTraining(in: folder)
        options.frontend = SpeechEmbedding.melFrontend
        let embeddingFile = TestPaths.projectRoot.appendingPathComponent("Models/speech_embedding.hwse")
        options.frontend.embedding = try SpeechEmbeddingFile.decode(Array(Data(contentsOf: embeddingFile)))
        options.positiveVariants = 3
        options.negativeWindows = 24
        options.epochs = 12
        options.epochsPerPool = 12
        options.ensembleMembers = 2
        let (model, epochs, _) = try Self.train(options)

        #expect(model.frontend.embedding == options.frontend.embedding)
        #expect(model.receptiveField == 16, "16 embeddings, 1.28 s")
        #expect(model.layers.count == 3 && epochs.contains { $0.member == 2 }, "both heads trained, run as one network")
        #expect(epochs.last!.trainingLoss < epochs.first!.trainingLoss * 0.7, "losses \(epochs.map(\.trainingLoss))")
        // A score needs 16 embeddings, 2 s of audio: the word is heard after more silence than that.
        try Self.expectDetections(by: model, of: URL(fileURLWithPath: options.positiveFolders[0]).appendingPathComponent("0.wav"), silence: 3)
    }

    /// `model` hears the training phrase in `clip`, between `silence` seconds of silence.
    static func expectDetections(by model: KeywordModel, of clip: URL, silence seconds: Int = 1) throws {
        let samples = try AudioFileReader.read(clip).samples
        let silence = [Float](repeating: 0, count: 16_000 * seconds)
        let detector = try Detector(models: [model], settings: ["hey susi": KeywordSettings(sensitivity: 1)])
        let found = detector.process(silence + samples + silence)
        #expect(!found.isEmpty, "the model should hear its own training phrase")
        #expect(found.allSatisfy { $0.keyword == "hey susi" })
    }

    /// `--ensemble 2`: two networks train in lockstep on one set of example pools and run side
    /// by side as one model; the first is the network seed 1 trains alone, the second another.
    @Test func anEnsembleTrainsItsNetworksOnSharedPools() throws {
        var options = try Self.tinyTraining(in: folder)
        options.epochsPerPool = 3
        let alone = try Self.train(options)
        options.ensembleMembers = 2
        let (ensemble, epochs, statuses) = try Self.train(options)

        #expect(statuses.filter { $0.hasPrefix("drawing example pool") }.count == options.epochs / options.epochsPerPool,
                "one pool for both networks: \(statuses)")
        let first = epochs.filter { $0.member == 1 }, second = epochs.filter { $0.member == 2 }
        #expect(first.count == options.epochs && second.count == options.epochs, "all epochs for each network")
        #expect(first.map(\.trainingLoss) == alone.epochs.map(\.trainingLoss), "network 1 trains as seed 1 alone")
        #expect(second.map(\.trainingLoss) != first.map(\.trainingLoss), "network 2 starts from other weights")
        #expect(ensemble.training.seed == 1)
        #expect(ensemble.parameterCount == 2 * alone.model.parameterCount - 1, "two networks, one output averaging their logits")
        try Self.expectDetections(by: ensemble, of: URL(fileURLWithPath: options.positiveFolders[0]).appendingPathComponent("0.wav"))
        options.ensembleMembers = 9
        #expect { try Trainer(options: options) } throws: { "\($0)" == "--ensemble 9 is invalid: expected 1 to 8 networks" }
    }

    /// Early stopping: training ends `patience` epochs after the last better validation score.
    @Test func trainingStopsPatienceEpochsAfterTheBestScore() throws {
        var options = try Self.tinyTraining(in: folder)
        options.split = DataSplit(validationFraction: 0.4, testFraction: 0)
        options.epochs = 8
        options.patience = 1
        options.epochsPerPool = 8
        let (_, epochs, statuses) = try Self.train(options)

        let lastBetter = try #require(epochs.lastIndex { $0.improved })
        #expect(epochs.count == min(options.epochs, lastBetter + 1 + options.patience), "\(epochs.map(\.improved))")
        #expect(epochs.count == options.epochs || statuses.contains("no improvement for 1 epochs: stopping early"), "\(statuses)")
    }

    /// `--average-epochs`: validation scores the averaged weights, and the model keeps them.
    @Test func averagedWeightsAreValidatedAndKept() throws {
        var options = try Self.tinyTraining(in: folder)
        options.epochs = 3
        options.epochsPerPool = 3
        let plain = try Self.train(options)
        options.averageEpochs = 1
        let averaged = try Self.train(options)

        // The same seed draws the same pools and steps: only what is validated and kept differs.
        #expect(averaged.epochs.map(\.trainingLoss) == plain.epochs.map(\.trainingLoss))
        #expect(averaged.epochs.map(\.validationLoss) != plain.epochs.map(\.validationLoss))
        #expect(averaged.model.layers != plain.model.layers)
        #expect(averaged.epochs.last!.validationLoss < averaged.epochs.first!.validationLoss * 0.9,
                "validation losses \(averaged.epochs.map(\.validationLoss))")
        options.averageEpochs = -1
        #expect { try Trainer(options: options) } throws: { "\($0)" == "--average-epochs -1.0 is invalid: expected 0 or more" }
    }

    /// The tiny training with one round of hard-negative mining after `epochs`, fully augmented.
    static func miningTraining(in folder: URL, epochs: Int) throws -> TrainingOptions {
        var options = try tinyTraining(in: folder)
        options.epochs = epochs
        options.epochsPerPool = epochs
        options.hardNegativeRounds = 1
        options.positiveVariants = 2
        options.augmentation = AugmentationSettings()
        return options
    }

    /// The windows `network` ("network 2: "; "" training alone) reported finding in round 1.
    static func hardNegativesFound(in statuses: [String], by network: String = "") throws -> Int {
        let prefix = "\(network)hard negatives, round 1: "
        let line = try #require(statuses.first { $0.hasPrefix(prefix) }, "\(statuses)")
        return try #require(Int(line.dropFirst(prefix.count).prefix { $0.isNumber }), "\(line)")
    }

    /// `--mining-passes`: each pass hears the negatives in fresh noise and adds what fired there
    /// to what the first pass found.
    @Test func moreMiningPassesFindMoreHardNegatives() throws {
        var options = try Self.miningTraining(in: folder, epochs: 1)
        func found(passes: Int) throws -> Int {
            options.miningPasses = passes
            return try Self.hardNegativesFound(in: Self.train(options).statuses)
        }
        let one = try found(passes: 1), three = try found(passes: 3)
        #expect(one > 0, "a model trained for one epoch fires somewhere")
        #expect(three > one, "one pass: \(one) windows, three: \(three)")
        options.miningPasses = 0
        #expect { try Trainer(options: options) } throws: { "\($0)" == "--mining-passes 0 is invalid: expected at least 1" }
    }

    /// An ensemble's networks search for hard negatives at once, a thread each, and each finds
    /// what it would find alone: the first what seed 1 finds training by itself, the model the
    /// same whether the searches share the cores or take turns on one.
    @Test func anEnsemblesNetworksMineHardNegativesAsEachWouldAlone() throws {
        var options = try Self.miningTraining(in: folder, epochs: 2)
        let alone = try Self.train(options)
        options.ensembleMembers = 2
        options.threads = 2
        let together = try Self.train(options)
        options.threads = 1
        let inTurn = try Self.train(options)

        #expect(try Self.hardNegativesFound(in: together.statuses, by: "network 1: ") == Self.hardNegativesFound(in: alone.statuses))
        #expect(try Self.hardNegativesFound(in: together.statuses, by: "network 2: ") > 0, "a model trained for two epochs fires somewhere")
        #expect(together.model.layers == inTurn.model.layers, "the thread count must not change the model")
        #expect(together.epochs.map(\.trainingLoss) == inTurn.epochs.map(\.trainingLoss))
    }

    /// `--speed-negatives` changes the windows cut from long negative audio (they come last in a
    /// pool) and nothing else: keyword, partial and utterance windows stay as they were drawn.
    @Test func speedNegativesChangesOnlyTheNegativeAudioWindows() throws {
        var options = try Self.tinyTraining(in: folder)
        func pool(speedingNegatives: Bool) throws -> ExamplePool {
            options.augmentation.speedPerturbsNegativeAudio = speedingNegatives
            let data = try TrainingData.load(options) { _ in }
            return try ExampleFactory(options: options, data: data, frames: 183).trainingPool(round: 0)
        }
        let plain = try pool(speedingNegatives: false), sped = try pool(speedingNegatives: true)
        #expect(plain.labels == sped.labels)
        func window(_ index: Int, of pool: ExamplePool) -> ArraySlice<Float> {
            let size = pool.frames * pool.width
            return pool.features[(index * size)..<((index + 1) * size)]
        }
        let differing = (0..<plain.count).filter { window($0, of: plain) != window($0, of: sped) }
        let first = try #require(differing.first, "no window changed")
        #expect(differing == Array(first..<plain.count), "only a run of windows at the end changes: \(differing)")
        #expect(plain.labels[first...].allSatisfy { $0 == 0 })
        #expect(plain.labels[..<first].contains(1) && plain.labels[..<first].contains(0))
    }

    /// `--noise-windows N` adds N negative windows of noise or music alone to each training pool
    /// (not to validation), before the windows cut from negative audio; `--channels-augmented`
    /// changes the sound of every kind of window, `--no-telephone-keywords` of keyword windows only.
    @Test func noiseWindowsAndChannelsChangeThePoolAsAsked() throws {
        var options = try Self.tinyTraining(in: folder)
        func pools() throws -> (train: ExamplePool, validation: ExamplePool) {
            let factory = ExampleFactory(options: options, data: try TrainingData.load(options) { _ in }, frames: 183)
            return (try factory.trainingPool(round: 0), try factory.validationPool())
        }
        let plain = try pools()
        options.noiseAloneWindows = 7
        let withNoise = try pools()
        #expect(withNoise.train.count == plain.train.count + 7 && withNoise.train.positives == plain.train.positives)
        #expect(withNoise.validation.count == plain.validation.count)
        options.noiseAloneWindows = 0
        options.augmentation.channelProbability = 1
        let throughChannels = try pools()
        #expect(throughChannels.train.labels == plain.train.labels)
        let size = plain.train.frames * plain.train.width
        let changed = (0..<plain.train.count).filter {
            plain.train.features[($0 * size)..<(($0 + 1) * size)] != throughChannels.train.features[($0 * size)..<(($0 + 1) * size)]
        }
        #expect(changed.count == plain.train.count, "\(changed.count) of \(plain.train.count) windows changed")

        // `--no-telephone-keywords`: the keyword windows that came down a telephone line take a
        // codec's band; every negative window is heard as before.
        options.augmentation.telephoneLinesOnKeywords = false
        let keywordsOffLines = try pools()
        let window = { (pool: ExamplePool, index: Int) in pool.features[(index * size)..<((index + 1) * size)] }
        let relined = (0..<plain.train.count).filter { window(throughChannels.train, $0) != window(keywordsOffLines.train, $0) }
        #expect(!relined.isEmpty && relined.allSatisfy { plain.train.labels[$0] == 1 },
                "changed \(relined.count) windows, labels \(relined.map { plain.train.labels[$0] })")
    }

    /// `--balance-positives`: a folder of one clip is drawn as often as a folder of four.
    @Test func balancedPositiveFoldersAreDrawnAlike() throws {
        #expect(FolderBalance.repeats(clipCounts: [221, 1166]) == [5, 1])
        #expect(FolderBalance.repeats(clipCounts: [300, 200, 0]) == [1, 2, 0])
        #expect(FolderBalance.repeats(clipCounts: [7]) == [1])

        let few = folder.appendingPathComponent("few"), many = folder.appendingPathComponent("many"), negatives = folder.appendingPathComponent("negatives")
        for directory in [few, many, negatives] { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) }
        try Espeak.speak("hey susi", voice: "en+m1", rate: 150, to: few.appendingPathComponent("0.wav").path)
        for (index, voice) in ["en+f2", "en-us", "en+f4", "en-us+m2"].enumerated() {
            try Espeak.speak("hey susi", voice: voice, rate: 150, to: many.appendingPathComponent("\(index).wav").path)
        }
        try Espeak.speak("good morning everyone", voice: "en-us", rate: 160, to: negatives.appendingPathComponent("0.wav").path)

        var options = TrainingOptions(keyword: "hey susi", positiveFolders: [few.path, many.path], negativeFolders: [negatives.path])
        options.split = DataSplit(validationFraction: 0, testFraction: 0)
        options.epochs = 1
        options.channels = 8
        options.positiveVariants = 2
        options.negativeWindows = 40
        options.hardNegativeRounds = 0
        options.balancePositiveFolders = true
        let statuses = try Self.train(options).statuses

        #expect(statuses.contains("balanced keyword folders: \(few.path) 1 clips × 4, \(many.path) 4 clips × 1"), "\(statuses)")
        #expect(statuses.contains { $0.hasPrefix("train: 8 keyword clips") }, "\(statuses)")
    }

    @Test func badOptionsAndMissingDataAreNamed() {
        var options = TrainingOptions(keyword: "x", positiveFolders: ["/nonexistent/keyword"], negativeFolders: [])
        options.epochs = 0
        #expect { try Trainer(options: options) } throws: { "\($0)" == "--epochs 0 is invalid: expected at least 1" }
        options.epochs = 1
        options.patience = 0
        #expect { try Trainer(options: options) } throws: { "\($0)" == "--patience 0 is invalid: expected at least 1" }
        options.patience = 6
        #expect { try Trainer(options: options).train() } throws: { "\($0)" == "/nonexistent/keyword: no such file or folder (nor files matching it)" }
    }
}
