import Foundation
import HotwordCore

/// Chooses a model's operating point from measured false alarms.
public enum Tuning {
    /// Candidate thresholds, dense near 1 where low false-alarm rates live: σ(l) for logits 0…12.
    public static let thresholds: [Float] = stride(from: 0, through: 12, by: 0.25).map { 1 / (1 + exp(-Float($0))) }

    public struct Result: Sendable {
        public var model: KeywordModel
        public var chosen: OperatingPoint
        public var points: [OperatingPoint]
    }

    /// Sets sensitivity 0.5 to the lowest threshold with at most `target` false alarms per hour
    /// on `stream`, sensitivity 0 to one with a tenth of that, and 1 to one with ten times that.
    public static func tune(_ model: KeywordModel, stream: EvaluationStream, target: Double) throws -> Result {
        let points = try Evaluation.thresholdSweep(model, stream: stream, thresholds: thresholds)
        func lowestThreshold(within limit: Double) -> OperatingPoint {
            points.filter { $0.falseAlarmsPerHour <= limit }.min { $0.threshold < $1.threshold } ?? points.max { $0.threshold < $1.threshold }!
        }
        let chosen = lowestThreshold(within: target)
        let strict = max(lowestThreshold(within: target / 10).threshold, chosen.threshold)
        let lenient = min(lowestThreshold(within: target * 10).threshold, chosen.threshold)
        var tuned = model
        tuned.detection.sensitivity = 0.5
        tuned.detection.sensitivityMap = SensitivityMap(points: [
            .init(sensitivity: 0, threshold: max(strict, chosen.threshold)),
            .init(sensitivity: 0.5, threshold: chosen.threshold),
            .init(sensitivity: 1, threshold: min(lenient, chosen.threshold)),
        ])
        tuned.training.figures["tuned_target_false_alarms_per_hour"] = target
        tuned.training.figures["tuned_threshold"] = Double(chosen.threshold)
        try tuned.validate()
        return Result(model: tuned, chosen: chosen, points: points)
    }
}
