import Foundation
import HotwordCore

/// Chooses a pair's gate (`CompanionGate`): how rarely its companion on the speech embedding may
/// run for the misses it costs.
public enum GateTuning {
    /// Candidate gate logits, lowest (open most) first.
    public static let candidateLogits: [Float] = stride(from: -12, through: 8, by: 0.5).map { Float($0) }

    /// One gate's figures at one threshold, beside the ungated pair's.
    public struct Choice: Sendable {
        public var gate: CompanionGate
        /// The share of the first network's outputs at which the gate was open.
        public var openShare: Double
        public var gated: OperatingPoint
        public var ungated: OperatingPoint
    }

    public enum Failure: Error, CustomStringConvertible {
        case notAPair
        case noGateWithinBudget(lowestLogit: Float)

        public var description: String {
            switch self {
            case .notAPair: "a gate needs a model with a companion network"
            case .noGateWithinBudget(let logit): "even the most open gate tried (logit \(logit)) misses more than the budget allows"
            }
        }
    }

    /// The gate, at `holdSeconds`, that runs the companion least while missing at most `missBudget`
    /// (a share) more of the keywords than the ungated pair at `threshold` and counting no more
    /// false alarms. A higher gate logit opens on a subset of the outputs a lower one opens on, so
    /// it costs less: the candidates are tried from the lowest up and the last one before the
    /// first that breaks the budget is chosen — not a lucky one beyond it. Scores come from the
    /// ungated pair's traces (`ScoreTrace.gated`): false alarms counted on `trace`, misses on
    /// `keywords` where given (as `Tuning.tune` reads them), else on `trace`.
    public static func choose(_ model: KeywordModel, trace: ScoreTrace, keywords keywordTrace: ScoreTrace? = nil, threshold: Float,
                              missBudget: Double, holdSeconds: Float) throws -> Choice {
        guard let weight = model.companion?.weight else { throw Failure.notAPair }
        func point(_ gate: CompanionGate?) throws -> (point: OperatingPoint, openShare: Double) {
            func measured(_ trace: ScoreTrace) throws -> (OperatingPoint, Double) {
                guard let gate else { return (try Evaluation.thresholdSweep(model, over: trace, thresholds: [threshold])[0], 1) }
                let (gated, openShare) = trace.gated(by: gate, weight: weight)
                return (try Evaluation.thresholdSweep(model, over: gated, thresholds: [threshold])[0], openShare)
            }
            var (falseAlarms, openShare) = try measured(trace)
            if let keywordTrace {
                let (heard, _) = try measured(keywordTrace)
                falseAlarms.keywords = heard.keywords
                falseAlarms.misses = heard.misses
                falseAlarms.missedKeywords = heard.missedKeywords
            }
            return (falseAlarms, openShare)
        }
        let ungated = try point(nil).point
        var chosen: Choice?
        for logit in candidateLogits {
            let gate = CompanionGate(logit: logit, holdSeconds: holdSeconds)
            let (gated, openShare) = try point(gate)
            guard gated.missRate <= ungated.missRate + missBudget, gated.falseAlarms <= ungated.falseAlarms else { break }
            chosen = Choice(gate: gate, openShare: openShare, gated: gated, ungated: ungated)
        }
        guard let chosen else { throw Failure.noGateWithinBudget(lowestLogit: candidateLogits[0]) }
        return chosen
    }
}
