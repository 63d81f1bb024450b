import Foundation

/// False-alarm rates below what a stream can count, read off its highest-scoring false alarms.
///
/// Nine hours of tuning speech count false alarms in steps of 0.11 an hour: a target of 0.05 is
/// "none at all", and whichever threshold first shows none is chance. Peaks over a threshold
/// (the exponential tail of extreme-value theory) extrapolate instead: above the threshold `u`
/// that about `tailEvents` false alarms still pass, their number falls exponentially with the
/// threshold's logit, N(ℓ) = N(u)·exp(−(ℓ − u)/β), where β is their mean excess over u — the
/// area under N beyond u divided by N(u).
public struct FalseAlarmTail: Sendable, Equatable {
    /// Logit of the tail's base threshold, u.
    public var base: Double
    /// False alarms per hour at the base threshold, N(u)/hours.
    public var ratePerHourAtBase: Double
    /// Mean excess of the false alarms over the base threshold, β, in logits.
    public var meanExcess: Double

    /// How many false alarms at most the tail starts from: enough to average over, few enough to
    /// be the tail rather than the bulk of the scores.
    public static let tailEvents = 20
    /// Fewer false alarms than this above the base say nothing about the tail's slope.
    public static let leastEvents = 3

    /// Fits the tail of a threshold sweep (`points` in any order, one stream). `nil` when fewer than
    /// `leastEvents` false alarms lie in it.
    public init?(_ points: [OperatingPoint]) {
        let sweep = points.sorted { $0.threshold < $1.threshold }.map { (logit: Self.logit($0.threshold), point: $0) }
        guard let start = sweep.firstIndex(where: { $0.point.falseAlarms <= Self.tailEvents }),
              sweep[start].point.falseAlarms >= Self.leastEvents, sweep[start].point.negativeHours > 0 else { return nil }
        let tail = sweep[start...]
        // The area under N(ℓ) beyond u by trapezoids; the sweep ends where none is left (or near enough).
        let area = zip(tail, tail.dropFirst()).reduce(0.0) { sum, cell in
            sum + Double(cell.0.point.falseAlarms + cell.1.point.falseAlarms) / 2 * (cell.1.logit - cell.0.logit)
        }
        let baseCount = Double(tail.first!.point.falseAlarms)
        base = tail.first!.logit
        ratePerHourAtBase = baseCount / tail.first!.point.negativeHours
        meanExcess = area / baseCount
    }

    public init(base: Double, ratePerHourAtBase: Double, meanExcess: Double) {
        self.base = base
        self.ratePerHourAtBase = ratePerHourAtBase
        self.meanExcess = meanExcess
    }

    /// The fitted rate at a threshold past the base.
    public func ratePerHour(at threshold: Float) -> Double {
        ratePerHourAtBase * exp(-(Self.logit(threshold) - base) / meanExcess)
    }

    /// The threshold where the fitted rate falls to `rate` (below the rate at the base).
    public func threshold(forRatePerHour rate: Double) -> Float {
        let logit = base + meanExcess * log(ratePerHourAtBase / rate)
        return Float(1 / (1 + exp(-logit)))
    }

    static func logit(_ threshold: Float) -> Double {
        let p = min(max(Double(threshold), 1e-12), 1 - 1e-12)
        return log(p / (1 - p))
    }
}
