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
    /// Which network of an ensemble (1, 2, …); nil when training one.
    public var member: Int?
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
/// `ensembleMembers` > 1, that many networks train in lockstep on the same example pools (drawn
/// once, the largest cost of training) and become one model.
public final class Trainer {
    public let options: TrainingOptions
    private let report: (TrainingProgress) -> Void

    public init(options: TrainingOptions, progress: @escaping (TrainingProgress) -> Void = { _ in }) throws(TrainingError) {
        try options.validate()
        self.options = options
        self.report = progress
    }

    public func train() throws -> KeywordModel {
        let data = try TrainingData.load(options, report: report)
        let members = try (0..<options.ensembleMembers).map { index in
            var memberOptions = options
            memberOptions.seed = options.seed &+ UInt64(index)
            return try Member(index: index + 1, of: options.ensembleMembers, options: memberOptions, data: data)
        }
        let frames = members[0].miner.frames
        let width = options.frontend.featureCount
        let factory = ExampleFactory(options: options, data: data, frames: frames)
        let parameters = members[0].network.parameterCount
        let windowSeconds = Double(frames * options.frontend.outputFrameShift) / Double(options.frontend.sampleRate)
        report(.status("network: \(parameters) parameters, window \(frames) frames (\(windowSeconds) s)"
            + (members.count > 1 ? "; \(members.count) of them side by side, seeds \(options.seed)…\(members.last!.seed), on shared example pools" : "")))

        let validationPool = try factory.validationPool()
        report(.status("validation: \(validationPool.positives) keyword windows, \(validationPool.count - validationPool.positives) others"))
        let validation = TrainingSet([validationPool])
        var epoch = 0

        /// Up to `count` epochs at `learningRate` for each of `training`, with early stopping
        /// each its own; every member ends the phase with its best weights.
        func runPhase(_ count: Int, learningRate: Float, for training: [Member]) throws {
            for member in training { member.startPhase(learningRate: learningRate, averageEpochs: options.averageEpochs) }
            var pool = ExamplePool(frames: frames, width: width)
            for local in 0..<count {
                let active = training.filter { !$0.stopped }
                guard !active.isEmpty else { break }
                epoch += 1
                if local % options.epochsPerPool == 0 {
                    report(.status("drawing example pool for epoch \(epoch)…"))
                    pool = ExamplePool(frames: frames, width: width)  // free it first: ~1 GB
                    pool = try factory.trainingPool(round: epoch)
                    report(.status("pool: \(pool.positives) keyword windows, \(pool.count - pool.positives) others"))
                }
                for member in active { try trainEpoch(member, pool: pool, epoch: epoch, validation: validation) }
            }
            for member in training { try member.finishPhase() }
        }

        try runPhase(options.epochs, learningRate: options.learningRate, for: members)
        var mining = members
        for round in 0..<options.hardNegativeRounds {
            // The networks search at once, a thread each: a search runs the front end over all the
            // negative audio in order (one random stream), so alone it would keep one core busy.
            let models = try mining.map { try exportModel([$0.network], validation: validation) }
            let searches = ParallelFor.map(mining.count, threads: options.threads) { index in
                Result { try mining[index].miner.hardNegatives(for: models[index], round: round) }
            }
            for (member, search) in zip(mining, searches) {
                let found = try search.get()
                report(.status("\(member.label)hard negatives, round \(round + 1): \(found.count) windows where the model fired on negative audio"))
                member.hardNegatives.append(contentsOf: found)
                // A network that fires on nothing more is done with hard negatives.
                if found.count == 0 { mining.removeAll { $0 === member } }
            }
            guard !mining.isEmpty else { break }
            try runPhase(max(options.epochsPerPool * 2, options.epochs / 3), learningRate: options.learningRate / 3, for: mining)
        }
        return try exportModel(members.map(\.network), validation: validation)
    }

    /// One epoch of `member` on `pool` plus its hard negatives, then validation and early stopping.
    private func trainEpoch(_ member: Member, pool: ExamplePool, epoch: Int, validation: TrainingSet) throws {
        var examples = TrainingSet([pool, member.hardNegatives])
        examples.balanceClasses()
        let loss = try trainBatches(member, on: examples, epoch: epoch)
        // With averaging, validation scores (and training keeps) the averaged weights.
        func validate() throws -> (EpochReport, NetworkState) {
            var result = try evaluate(member.network, on: validation, epoch: epoch, trainingLoss: loss)
            result.member = options.ensembleMembers > 1 ? member.index : nil
            return (result, member.network.state)
        }
        var (result, state) = try member.average.map { try $0.whileApplied(validate) } ?? validate()
        result.improved = member.record(state, score: result.missRateAtLowFalseAlarms + Double(result.validationLoss) * 1e-3)
        report(.epoch(result))
        guard loss.isFinite else { throw TrainingError.diverged(epoch: epoch, loss: loss) }
        if member.sinceImprovement >= options.patience {
            member.stopped = true
            report(.status("\(member.label)no improvement for \(options.patience) epochs: stopping early"))
        }
    }

    /// An epoch takes at least this many optimizer steps (while batches keep 16 windows): a small
    /// pool, such as a personal model's, is cut into smaller batches rather than into too few.
    static let minimumStepsPerEpoch = 20

    /// One pass of mini-batches over `pool` in a shuffled order; the mean loss.
    private func trainBatches(_ member: Member, on pool: TrainingSet, epoch: Int) throws -> Float {
        var rng = SeededRandom.derived(seed: member.seed, stream: 1_000_000 + UInt64(epoch))
        let order = Array(0..<pool.count).shuffled(using: &rng)
        let batchSize = min(options.batchSize, max(16, pool.count / Self.minimumStepsPerEpoch))
        let batches = (order.count + batchSize - 1) / batchSize
        let averageDecay = WeightAverage.decay(epochs: options.averageEpochs, stepsPerEpoch: batches)
        var totalLoss: Float = 0
        for b in 0..<batches {
            let indices = order[(b * batchSize)..<min(order.count, (b + 1) * batchSize)]
            guard indices.count >= 2 else { continue }  // batch norm needs two windows
            let batch = pool.batch(indices)
            let loss = try member.network.trainStep(batch.windows, targets: .binary(batch.labels), weights: batch.weights, optimizer: member.optimizer)
            member.average?.update(decay: averageDecay)
            totalLoss += loss
            if b % 20 == 0 || b == batches - 1 { report(.batch(epoch: epoch, done: b + 1, total: batches, loss: totalLoss / Float(b + 1))) }
        }
        return totalLoss / Float(max(batches, 1))
    }

    func scores(_ network: Network, on pool: TrainingSet) throws -> [Float] {
        var scores: [Float] = []
        var start = 0
        while start < pool.count {
            let indices = Array(start..<min(pool.count, start + 256))
            scores += try network.predict(pool.batch(indices[...]).windows)
            start += 256
        }
        return scores
    }

    private func evaluate(_ network: Network, on pool: TrainingSet, epoch: Int, trainingLoss: Float) throws -> EpochReport {
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
    private func exportModel(_ networks: [Network], validation: TrainingSet) throws -> KeywordModel {
        let memberScores = try networks.map { try self.scores($0, on: validation) }
        // The ensemble's score is the sigmoid of the members' mean logit (KeywordModel.ensemble).
        let scores = memberScores.count == 1 ? memberScores[0] : validation.labels.indices.map { i in
            let meanLogit = memberScores.reduce(0.0) { $0 + LogOdds.logit(Double($1[i]), margin: 1e-7) } / Double(memberScores.count)
            return Float(LogOdds.sigmoid(meanLogit))
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

/// One network in training, and where its training stands.
private final class Member {
    /// 1, 2, … in an ensemble of `members`.
    let index: Int
    let seed: UInt64
    let network: Network
    let optimizer: Adam
    /// Searches the negative audio for hard negatives with this member's own seed.
    let miner: ExampleFactory
    /// Windows this network once fired on, added to every pool it trains on.
    var hardNegatives: ExamplePool
    private var best: (state: NetworkState, score: Double)?
    private(set) var sinceImprovement = 0
    private(set) var average: WeightAverage?
    /// Early stopping ended its current phase.
    var stopped = false
    /// "network 2: " in an ensemble, so progress lines say whose they are.
    let label: String

    init(index: Int, of members: Int, options: TrainingOptions, data: TrainingData) throws {
        self.index = index
        seed = options.seed
        network = try Network(features: options.frontend.featureCount,
                              layers: LayerSpec.network(for: options.frontend, channels: options.channels, dropout: options.dropout),
                              seed: options.seed, threads: options.threads)
        optimizer = Adam(network: network, configuration: AdamConfiguration(learningRate: options.learningRate, gradientClipNorm: 5))
        let stride = network.totalStride
        let frames = (network.minimumFrames + stride - 1) / stride * stride
        miner = ExampleFactory(options: options, data: data, frames: frames)
        hardNegatives = ExamplePool(frames: frames, width: options.frontend.featureCount)
        label = members > 1 ? "network \(index): " : ""
    }

    func startPhase(learningRate: Float, averageEpochs: Double) {
        optimizer.configuration.learningRate = learningRate
        best = nil
        sinceImprovement = 0
        stopped = false
        average = averageEpochs > 0 ? WeightAverage(of: network) : nil
    }

    /// Keeps `state` if `score` (lower is better) is the phase's best so far; true if it is.
    func record(_ state: NetworkState, score: Double) -> Bool {
        guard best == nil || score < best!.score else {
            sinceImprovement += 1
            return false
        }
        best = (state, score)
        sinceImprovement = 0
        return true
    }

    /// Back to the phase's best weights.
    func finishPhase() throws {
        if let best { try network.restore(best.state) }
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
