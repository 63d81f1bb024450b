import Foundation
import HotwordCore

/// Chooses a model's operating point from measured false alarms.
public enum Tuning {
    /// Candidate thresholds, dense near 1 where low false-alarm rates live: σ(l) for logits 0…12
    /// in steps of 0.25. A network whose detections a second stage checks may fire far more often
    /// for the same false alarms, so `checked` reaches down to logit −2 (0.12): a text-only
    /// keyword's network scores many people between 0.1 and 0.5.
    public static func thresholds(checked: Bool) -> [Float] {
        stride(from: checked ? -2 : 0, through: 12, by: 0.25).map { LogOdds.sigmoid(Float($0)) }
    }

    public struct Result: Sendable {
        public var model: KeywordModel
        public var chosen: OperatingPoint
        public var points: [OperatingPoint]
        /// False alarms per hour at the chosen threshold by the tail's fit, where the target was
        /// read off the tail (nil where it was counted): the rate the counted one, often none, stands for.
        public var fittedFalseAlarmsPerHour: Double?
        /// Whether the miss budget, not the false-alarm target, set the threshold.
        public var setByMissBudget: Bool
        /// Whether a source on its own (`everySource`), not the pooled target, set the threshold.
        public var setByWorstSource: Bool
        /// With `everySource`: each source's false alarms at the chosen threshold.
        public var bySource: [SourceFalseAlarms]
    }

    /// Least distance, in logits, of the thresholds at sensitivity 0 and 1 from the one at 0.5.
    public static let sensitivitySpan: Float = 2

    /// Sets sensitivity 0.5 to the lowest threshold with at most `target` false alarms per hour
    /// on the trace's stream, sensitivity 0 to one with a tenth of that, and 1 to one with ten times that
    /// (widened, see `sensitivityMap`). A rate below what the stream counts in its highest-scoring
    /// false alarms is read off their tail (`FalseAlarmTail`) rather than from the few, or none,
    /// counted there. With a `check`, the false alarms counted are those the
    /// check lets through: the two stages tuned together. `trace` is `model`'s scores on the stream.
    ///
    /// With a `missBudget`, sensitivity 0.5 is stricter where the keywords allow it: the highest
    /// threshold missing at most that share of the stream's keywords, if above the target's
    /// (`defaultThreshold`).
    ///
    /// `keywordTrace`, when given, is where the keywords are heard (the model's scores on a stream
    /// of keyword clips alone, e.g. under louder noise than the speech): the miss rates are read
    /// there and the false alarms on `trace`. Why apart: noise loud enough to be where people are
    /// missed also masks the speech that wakes a model, so one stream at one level would set a
    /// default lenient on misses and blind to its false alarms. With `everySource`, the target
    /// holds for each source of `trace` on its own (counted, `everySourceThreshold`) as well as
    /// pooled: a model is judged by the source that wakes it most.
    public static func tune(_ model: KeywordModel, over trace: ScoreTrace, keywords keywordTrace: ScoreTrace? = nil,
                            target: Double, missBudget: Double? = nil, everySource: Bool = false,
                            check: (any DetectionCheck)? = nil) throws -> Result {
        func sweep(_ thresholds: [Float]) throws -> [OperatingPoint] {
            let points = try Evaluation.thresholdSweep(model, over: trace, thresholds: thresholds, check: check)
            guard let keywordTrace else { return points }
            let heard = try Evaluation.thresholdSweep(model, over: keywordTrace, thresholds: thresholds, check: check)
            return zip(points, heard).map { falseAlarms, keywords in
                var point = falseAlarms
                point.keywords = keywords.keywords
                point.misses = keywords.misses
                point.missedKeywords = keywords.missedKeywords
                return point
            }
        }
        let points = try sweep(thresholds(checked: check != nil))
        let sourceFloor = everySource ? everySourceThreshold(
            points.map { ($0.threshold, Evaluation.bySource($0, in: trace.stream).map(\.perHour).max() ?? 0) }, target: target) : nil
        let (strict, middle, lenient) = operatingThresholds(points, target: target, missBudget: missBudget, floor: sourceFloor)
        let chosen = try sweep([middle])[0]
        var tuned = model
        tuned.detection.sensitivity = 0.5
        tuned.detection.sensitivityMap = sensitivityMap(strict: strict, middle: middle, lenient: lenient)
        tuned.training.figures["tuned_target_false_alarms_per_hour"] = target
        tuned.training.figures["tuned_threshold"] = Double(chosen.threshold)
        tuned.training.figures["tuned_miss_budget"] = missBudget
        tuned.training.figures["tuned_every_source"] = everySource ? 1 : nil
        let fitted = tailFit(points, for: target)?.ratePerHour(at: middle)
        tuned.training.figures["tuned_fitted_false_alarms_per_hour"] = fitted
        try tuned.validate()
        let pooled = operatingThresholds(points, target: target).middle
        return Result(model: tuned, chosen: chosen, points: points, fittedFalseAlarmsPerHour: fitted,
                      setByMissBudget: middle != operatingThresholds(points, target: target, floor: sourceFloor).middle,
                      setByWorstSource: sourceFloor.map { $0 == middle && $0 > pooled } ?? false,
                      bySource: everySource ? Evaluation.bySource(chosen, in: trace.stream) : [])
    }

    /// The lowest of a sweep's thresholds from which up no source counts more than `target` false
    /// alarms per hour on its own (`worst`: each threshold's worst source's rate), or the highest
    /// threshold if every one has a source over. Counted, not read off a fit: a source's own tail
    /// is a handful of alarms at most. "From which up", as a stricter threshold can count more on
    /// one source when a detection moves between clips.
    public static func everySourceThreshold(_ worst: [(threshold: Float, perHour: Double)], target: Double) -> Float {
        let ascending = worst.sorted { $0.threshold < $1.threshold }
        guard let lastOver = ascending.lastIndex(where: { $0.perHour > target }) else { return ascending.first!.threshold }
        return ascending[min(lastOver + 1, ascending.count - 1)].threshold
    }

    /// Sensitivity 0.5's threshold under a miss budget: the highest of the sweep's `points` that
    /// misses at most `missBudget` of the keywords, but never below `targeted`, the one meeting the
    /// false-alarm target. Why: the rate counted on the tuning corpora understates what speech
    /// from elsewhere does (held-out sources woke models tuned to 1/h four to sixteen times an
    /// hour), while the keywords' scores say how much strictness the word can afford — a model
    /// sure of its word is set strict, and quiet, wherever its people allow.
    public static func defaultThreshold(_ points: [OperatingPoint], targeted: Float, missBudget: Double) -> Float {
        let affordable = points.filter { $0.keywords > 0 && $0.missRate <= missBudget }.map(\.threshold).max()
        return max(targeted, affordable ?? targeted)
    }

    /// The thresholds for a tenth of `target`, `target` and ten times it, from a sweep's `points`:
    /// the lowest counted to meet each, or where the tail's fit meets it for a rate below the
    /// tail's base. Never above the sweep's highest threshold. A `floor` (`everySourceThreshold`)
    /// raises the target's threshold to at least it, and a `missBudget` may raise the middle
    /// further (`defaultThreshold`). Whenever either sets the middle stricter than the pooled
    /// target's threshold, the target's (with its floor) is the lenient end: ten times the target,
    /// from a default already stricter than the target, would be a leap. Where the floor itself
    /// set the middle, the ends are then as far apart as `sensitivityMap` keeps them.
    public static func operatingThresholds(_ points: [OperatingPoint], target: Double, missBudget: Double? = nil,
                                           floor: Float? = nil) -> (strict: Float, middle: Float, lenient: Float) {
        let highest = points.map(\.threshold).max()!
        func threshold(within limit: Double) -> Float {
            if let tail = tailFit(points, for: limit) { return min(tail.threshold(forRatePerHour: limit), highest) }
            return points.filter { $0.falseAlarmsPerHour <= limit }.map(\.threshold).min() ?? highest
        }
        let pooled = threshold(within: target), targeted = max(pooled, floor ?? 0)
        let middle = missBudget.map { defaultThreshold(points, targeted: targeted, missBudget: $0) } ?? targeted
        return (threshold(within: target / 10), middle, middle > pooled ? targeted : threshold(within: target * 10))
    }

    /// The sweep's tail when `rate` is below what it counts at the tail's base, so is read off the fit.
    static func tailFit(_ points: [OperatingPoint], for rate: Double) -> FalseAlarmTail? {
        FalseAlarmTail(points).flatMap { rate < $0.ratePerHourAtBase ? $0 : nil }
    }

    /// Sensitivity 0 at `strict`, 0.5 at `middle`, 1 at `lenient` — but 0 at least
    /// `sensitivitySpan` logits stricter than 0.5 and 1 that much more lenient. An hour or less of
    /// speech rarely tells a tenth of a false-alarm target from ten times it (none at all in
    /// either case), which would give several sensitivities one threshold and make
    /// `--sensitivity` do nothing.
    public static func sensitivityMap(strict: Float, middle: Float, lenient: Float) -> SensitivityMap {
        let logit = LogOdds.logit(middle)
        return SensitivityMap(points: [
            .init(sensitivity: 0, threshold: max(strict, LogOdds.sigmoid(logit + sensitivitySpan))),
            .init(sensitivity: 0.5, threshold: middle),
            .init(sensitivity: 1, threshold: min(lenient, LogOdds.sigmoid(logit - sensitivitySpan))),
        ])
    }
}
