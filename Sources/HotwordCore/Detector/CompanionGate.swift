import Foundation

/// When a model's companion network is worth running: a cascade. The first network (log-mel,
/// cheap) scores every output; the companion on the speech embedding (nine tenths of a pair's CPU)
/// is heard only while the gate is open — from a first-network output whose logit, for any
/// keyword, is at least `logit`, until `holdSeconds` after the last such output. While it is
/// closed the companion counts as not heard, probability 0, as before its first score
/// (`LogitFusion`), so the model's score is what the first network alone allows under the floor.
///
/// That makes a gated model's scores a function of the ungated ones: at an output where the gate
/// is open they are the same; where it is closed, σ((1 − w)·logit(first) + w·logit(0)).
/// `gatedScores` computes them from an ungated run, which is how `hotword tune` chooses a gate and
/// `hotword eval` reports both; the detector computes them by running the embedding only when
/// asked (`CompanionHead`), catching up on the windows it skipped.
public struct CompanionGate: Sendable, Hashable, Codable {
    /// The first network's logit at or above which the gate opens.
    public var logit: Float
    /// How long the gate stays open after the last first-network output at or above `logit`:
    /// the companion hears the rest of a word whose first-network score has already fallen.
    public var holdSeconds: Float

    public init(logit: Float, holdSeconds: Float) {
        self.logit = logit
        self.holdSeconds = holdSeconds
    }

    public static let maximumHoldSeconds: Float = 5
    /// Beyond the logits fusion clamps probabilities to, a gate is always open or never.
    public static var logitLimit: Float { -LogitFusion.logit(0) }

    /// The first network's score (a probability) at or above which the gate opens.
    var probability: Float { LogOdds.sigmoid(logit) }

    /// Checks the values and that `companion` can be caught up on from its last inputs alone: a
    /// stride-1 stack of convolutions and dense layers on the speech embedding, whose output at a
    /// window depends on its receptive field of embeddings and nothing before.
    func validate(for companion: KeywordModel) throws(ModelError) {
        guard logit.isFinite, abs(logit) <= Self.logitLimit else {
            throw .invalidModel("companion.gate.logit \(logit) must be a finite logit within ±\(Self.logitLimit)")
        }
        guard holdSeconds.isFinite, (0...Self.maximumHoldSeconds).contains(holdSeconds) else {
            throw .invalidModel("companion.gate.holdSeconds \(holdSeconds) must lie in 0...\(Self.maximumHoldSeconds)")
        }
        guard companion.frontend.embedding != nil, companion.catchUpMemory != nil else {
            throw .invalidModel("companion.gate: the cascade needs a companion on the speech embedding made of stride-1 convolutions and dense layers (no GRU), which it can catch up on")
        }
    }

    /// A model's gated scores from its ungated ones (`ScoreEvent.firstNetwork` set, as a
    /// detector reports a pair's), with the share of the first network's outputs at which the
    /// gate was open. The gate reads every keyword's score at an output, so give them all (a trace
    /// of one keyword of a model with several gates on that keyword alone). `weight` is the
    /// companion's (`CompanionNetwork.weight`). Only `raw` changes: replaying smooths again.
    public func gatedScores(_ scores: [ScoreEvent], weight: Float) -> (scores: [ScoreEvent], openShare: Double) {
        var window = GateWindow(self)
        var gated = scores
        var outputs = 0, open = 0, start = 0
        while start < scores.count {
            // The events of one output share its time.
            var end = start + 1
            while end < scores.count, scores[end].time == scores[start].time { end += 1 }
            let firsts = scores[start..<end].compactMap(\.firstNetwork)
            if let highest = firsts.max() {
                outputs += 1
                if window.observe(maximum: highest, at: scores[start].time) {
                    open += 1
                } else {
                    for i in start..<end {
                        if let first = scores[i].firstNetwork { gated[i].raw = LogitFusion.fuse(first: first, companion: 0, weight: weight) }
                    }
                }
            }
            start = end
        }
        return (gated, outputs == 0 ? 0 : Double(open) / Double(outputs))
    }
}

/// A gate's state over a stream: whether it is open at each first-network output, in time order.
struct GateWindow {
    let probability: Float
    let hold: Double
    private var openUntil = -Double.infinity

    init(_ gate: CompanionGate) {
        probability = gate.probability
        hold = Double(gate.holdSeconds)
    }

    /// Takes the first network's highest keyword score at `time`; whether the gate is open there.
    mutating func observe(maximum score: Float, at time: Double) -> Bool {
        if score >= probability { openUntil = max(openUntil, time + hold) }
        return time <= openUntil
    }

    mutating func reset() { openUntil = -.infinity }
}

extension KeywordModel {
    /// Embeddings a network on the speech embedding needs to give its output at a window from a
    /// fresh start — its receptive field — where that is all it depends on (stride 1, no GRU);
    /// nil where it must hear every window in order.
    var catchUpMemory: Int? {
        let finite = layers.allSatisfy { layer in
            if case .gru = layer { return false }
            return layer.stride == 1
        }
        return finite ? receptiveField : nil
    }
}
