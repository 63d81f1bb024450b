import Foundation
import HotwordCore

/// What the trainer reports while it works (the CLI draws a progress bar from it).
public enum TrainingProgress: Sendable {
    case status(String)
    case batch(epoch: Int, done: Int, total: Int, loss: Float)
    case epoch(EpochReport)
}

public struct EpochReport: Sendable {
    public var epoch: Int
    public var trainingLoss: Float
    public var validationLoss: Float
    /// Share of validation keyword windows scoring below 0.5.
    public var missRate: Double
    /// Validation windows without the keyword scoring 0.5 or more, of all such windows.
    public var falseAlarms: Int
    public var negativeWindows: Int
    /// Miss rate at the threshold that lets through 0.5 % of the validation negatives.
    public var missRateAtLowFalseAlarms: Double
    public var improved: Bool
}

/// Trains a one-keyword model: augmented example pools, mini-batch Adam with class balance,
/// validation and early stopping, then hard-negative rounds, then export. With
/// `ensembleMembers` > 1, the networks seeds `seed`, `seed + 1`, … would train alone become one
/// model.
public final class Trainer {
    public let options: TrainingOptions
    private let report: (TrainingProgress) -> Void

    public convenience init(options: TrainingOptions, progress: @escaping (TrainingProgress) -> Void = { _ in }) throws(TrainingError) {
        try options.validate()
        self.init(validated: options, report: progress)
    }

    private init(validated options: TrainingOptions, report: @escaping (TrainingProgress) -> Void) {
        self.options = options
        self.report = report
    }

    public func train() throws -> KeywordModel {
        let data = try TrainingData.load(options, report: report)
        var networks: [Network] = []
        var validation: ExamplePool?
        for member in 0..<options.ensembleMembers {
            var memberOptions = options
            memberOptions.seed = options.seed &+ UInt64(member)
            if options.ensembleMembers > 1 {
                report(.status("ensemble member \(member + 1) of \(options.ensembleMembers): seed \(memberOptions.seed)"))
            }
            let trained = try Trainer(validated: memberOptions, report: report).trainNetwork(data: data)
            networks.append(trained.network)
            validation = validation ?? trained.validation
        }
        return try exportModel(networks, validation: validation!)
    }

    /// One network, and the validation pool it was chosen on.
    private func trainNetwork(data: TrainingData) throws -> (network: Network, validation: ExamplePool) {
        let network = try Network(features: options.frontend.featureCount,
                                  layers: LayerSpec.dilatedDepthwiseStack(channels: options.channels, dropout: options.dropout),
                                  seed: options.seed, threads: options.threads)
        let stride = network.totalStride
        let frames = (network.minimumFrames + stride - 1) / stride * stride
        let factory = ExampleFactory(options: options, data: data, frames: frames)
        report(.status("network: \(network.parameterCount) parameters, window \(frames) frames (\(Double(frames) / 100) s)"))

        let validation = try factory.validationPool()
        report(.status("validation: \(validation.positives) keyword windows, \(validation.count - validation.positives) others"))
        let optimizer = Adam(network: network, configuration: AdamConfiguration(learningRate: options.learningRate, gradientClipNorm: 5))
        var best: (state: NetworkState, score: Double)?
        var hardNegatives = ExamplePool(frames: frames, width: options.frontend.featureCount)
        var epoch = 0

        func runEpochs(_ count: Int, learningRate: Float) throws {
            optimizer.configuration.learningRate = learningRate
            var pool = ExamplePool(frames: frames, width: options.frontend.featureCount)
            var sinceImprovement = 0
            let average = options.averageEpochs > 0 ? WeightAverage(of: network) : nil
            for local in 0..<count {
                epoch += 1
                if local % options.epochsPerPool == 0 {
                    report(.status("drawing example pool for epoch \(epoch)…"))
                    pool = ExamplePool(frames: frames, width: options.frontend.featureCount)  // free it first: ~1 GB
                    pool = try factory.trainingPool(round: epoch, hardNegatives: hardNegatives)
                    pool.balanceClasses()
                    report(.status("pool: \(pool.positives) keyword windows, \(pool.count - pool.positives) others (\(hardNegatives.count) hard)"))
                }
                let loss = try trainEpoch(network, optimizer: optimizer, pool: pool, epoch: epoch, average: average)
                // With averaging, validation scores (and training keeps) the averaged weights.
                func validate() throws -> (EpochReport, NetworkState) {
                    (try evaluate(network, on: validation, epoch: epoch, trainingLoss: loss), network.state)
                }
                var (result, state) = try average.map { try $0.whileApplied(validate) } ?? validate()
                let score = result.missRateAtLowFalseAlarms + Double(result.validationLoss) * 1e-3
                result.improved = best == nil || score < best!.score
                if result.improved {
                    best = (state, score)
                    sinceImprovement = 0
                } else {
                    sinceImprovement += 1
                }
                report(.epoch(result))
                guard loss.isFinite else { throw TrainingError.diverged(epoch: epoch, loss: loss) }
                if sinceImprovement >= options.patience {
                    report(.status("no improvement for \(options.patience) epochs: stopping early"))
                    break
                }
            }
            if let best { try network.restore(best.state) }
        }

        try runEpochs(options.epochs, learningRate: options.learningRate)
        for round in 0..<options.hardNegativeRounds {
            let found = try factory.hardNegatives(for: exportModel([network], validation: validation), round: round)
            report(.status("hard negatives, round \(round + 1): \(found.count) windows where the model fired on negative audio"))
            guard found.count > 0 else { break }
            hardNegatives.append(contentsOf: found)
            best = nil
            try runEpochs(max(options.epochsPerPool * 2, options.epochs / 3), learningRate: options.learningRate / 3)
        }
        return (network, validation)
    }

    /// An epoch takes at least this many optimizer steps (while batches keep 16 windows): a small
    /// pool, such as a personal model's, is cut into smaller batches rather than into too few.
    static let minimumStepsPerEpoch = 20

    private func trainEpoch(_ network: Network, optimizer: Adam, pool: ExamplePool, epoch: Int, average: WeightAverage?) throws -> Float {
        var rng = SeededRandom.derived(seed: options.seed, stream: 1_000_000 + UInt64(epoch))
        let order = Array(0..<pool.count).shuffled(using: &rng)
        let batchSize = min(options.batchSize, max(16, pool.count / Self.minimumStepsPerEpoch))
        let batches = (order.count + batchSize - 1) / batchSize
        let averageDecay = WeightAverage.decay(epochs: options.averageEpochs, stepsPerEpoch: batches)
        var totalLoss: Float = 0
        for b in 0..<batches {
            let indices = order[(b * batchSize)..<min(order.count, (b + 1) * batchSize)]
            guard indices.count >= 2 else { continue }  // batch norm needs two windows
            let batch = pool.batch(indices)
            let loss = try network.trainStep(batch.windows, targets: .binary(batch.labels), weights: batch.weights, optimizer: optimizer)
            average?.update(decay: averageDecay)
            totalLoss += loss
            if b % 20 == 0 || b == batches - 1 { report(.batch(epoch: epoch, done: b + 1, total: batches, loss: totalLoss / Float(b + 1))) }
        }
        return totalLoss / Float(max(batches, 1))
    }

    func scores(_ network: Network, on pool: ExamplePool) throws -> [Float] {
        var scores: [Float] = []
        var start = 0
        while start < pool.count {
            let indices = Array(start..<min(pool.count, start + 256))
            scores += try network.predict(pool.batch(indices[...]).windows)
            start += 256
        }
        return scores
    }

    private func evaluate(_ network: Network, on pool: ExamplePool, epoch: Int, trainingLoss: Float) throws -> EpochReport {
        let scores = try scores(network, on: pool)
        var loss: Double = 0
        var positives: [Float] = [], negatives: [Float] = []
        for (score, label) in zip(scores, pool.labels) {
            let p = Double(min(max(score, 1e-7), 1 - 1e-7))
            loss -= label > 0.5 ? log(p) : log(1 - p)
            if label > 0.5 { positives.append(score) } else { negatives.append(score) }
        }
        let strictThreshold = ValidationScores.threshold(negatives: negatives, allowedShare: 0.005)
        return EpochReport(
            epoch: epoch, trainingLoss: trainingLoss, validationLoss: Float(loss / Double(max(scores.count, 1))),
            missRate: ValidationScores.missRate(positives, threshold: 0.5),
            falseAlarms: negatives.filter { $0 >= 0.5 }.count, negativeWindows: negatives.count,
            missRateAtLowFalseAlarms: ValidationScores.missRate(positives, threshold: strictThreshold), improved: false)
    }

    /// The networks as one model (an ensemble if several), with a provisional operating point.
    private func exportModel(_ networks: [Network], validation: ExamplePool) throws -> KeywordModel {
        let memberScores = try networks.map { try self.scores($0, on: validation) }
        // The ensemble's score is the sigmoid of the members' mean logit (KeywordModel.ensemble).
        let scores = memberScores.count == 1 ? memberScores[0] : validation.labels.indices.map { i in
            let meanLogit = memberScores.reduce(0.0) { sum, member in
                let p = min(max(Double(member[i]), 1e-7), 1 - 1e-7)
                return sum + log(p / (1 - p))
            } / Double(memberScores.count)
            return Float(1 / (1 + exp(-meanLogit)))
        }
        let negatives = zip(scores, validation.labels).filter { $0.1 < 0.5 }.map(\.0)
        // Provisional operating point until `hotword tune` measures false alarms per hour:
        // the score only 0.2 % of validation negatives reach.
        let tuned = min(0.98, max(0.5, ValidationScores.threshold(negatives: negatives, allowedShare: 0.002)))
        let detection = DetectionDefaults(
            sensitivity: 0.5,
            sensitivityMap: SensitivityMap(points: [
                .init(sensitivity: 0, threshold: tuned + (1 - tuned) * 0.8),
                .init(sensitivity: 0.5, threshold: tuned),
                .init(sensitivity: 1, threshold: tuned * 0.5),
            ]),
            smoothingSeconds: 0.06, triggerLevel: 2, refractorySeconds: 1.5)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        let record = TrainingRecord(
            command: options.command,
            data: options.positiveFolders.map { "positives: \($0)" } + options.personalFolders.map { "personal: \($0)" } + options.negativeFolders.map { "negatives: \($0)" }
                + options.noiseFolders.map { "noise: \($0)" } + options.roomResponseFolders.map { "rooms: \($0)" }
                + options.falseAlarmFolders.map { "false alarms: \($0)" } + ["split: \(options.split.summary)"],
            seed: options.seed, date: formatter.string(from: Date()), figures: [:])
        let members = networks.map { network in
            KeywordModel(keywords: [options.keyword], frontend: options.frontend, layers: network.exportLayers(),
                         detection: detection, training: record)
        }
        let model = try KeywordModel.ensemble(of: members)
        try model.validate()
        return model
    }
}

enum ValidationScores {
    static func missRate(_ positives: [Float], threshold: Float) -> Double {
        positives.isEmpty ? 0 : Double(positives.filter { $0 < threshold }.count) / Double(positives.count)
    }

    /// The lowest threshold that lets through at most `allowedShare` of the negatives.
    static func threshold(negatives: [Float], allowedShare: Double) -> Float {
        guard !negatives.isEmpty else { return 0.5 }
        let sorted = negatives.sorted(by: >)
        let allowed = Int(Double(sorted.count) * allowedShare)
        return allowed < sorted.count ? sorted[allowed].nextUp : 1
    }
}
