import Foundation
import HotwordCore

/// False-alarm rates below what a stream can count, read off its highest-scoring false alarms.
///
/// Nine hours of tuning speech count false alarms in steps of 0.11 an hour: a target of 0.05 is
/// "none at all", and whichever threshold first shows none is chance. Peaks over a threshold
/// (the exponential tail of extreme-value theory) extrapolate instead: above the threshold `u`
/// that about `tailEvents` false alarms still pass, their number falls exponentially with the
/// threshold's logit, N(ℓ) = N(u)·exp(−(ℓ − u)/β), where β is their mean excess over u. The
/// last few (fewer than `leastEvents`) are censored at the threshold `c` where they are left:
/// known only to lie beyond it. A clip or two of the tuning speech that scores like the word
/// itself (someone saying something very like it) sits there at every threshold, and as an
/// exact excess it would stretch β and push the threshold up to where people are missed
/// (alexa's fold-A pair: 11.8 % instead of 5.6 %). Censored, β is the area under N from u to c
/// divided by the false alarms that fell away in between (the exponential's maximum-likelihood
/// estimate, by trapezoids).
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
    /// Fewer false alarms than this above the base say nothing about the tail's slope; fewer than
    /// this beyond a threshold are censored there.
    public static let leastEvents = 3

    /// Fits the tail of a threshold sweep (`points` in any order, one stream). `nil` when fewer than
    /// `leastEvents` false alarms lie in it.
    public init?(_ points: [OperatingPoint]) {
        let sweep = points.sorted { $0.threshold < $1.threshold }.map { (logit: Self.logit($0.threshold), point: $0) }
        guard let start = sweep.firstIndex(where: { $0.point.falseAlarms <= Self.tailEvents }),
              sweep[start].point.falseAlarms >= Self.leastEvents, sweep[start].point.negativeHours > 0 else { return nil }
        let cut = sweep[(start + 1)...].firstIndex { $0.point.falseAlarms < Self.leastEvents } ?? sweep.count - 1
        let tail = sweep[start...cut]
        let baseCount = tail.first!.point.falseAlarms, fellAway = baseCount - tail.last!.point.falseAlarms
        guard fellAway > 0 else { return nil }
        let area = zip(tail, tail.dropFirst()).reduce(0.0) { sum, cell in
            sum + Double(cell.0.point.falseAlarms + cell.1.point.falseAlarms) / 2 * (cell.1.logit - cell.0.logit)
        }
        base = tail.first!.logit
        ratePerHourAtBase = Double(baseCount) / tail.first!.point.negativeHours
        meanExcess = area / Double(fellAway)
    }

    /// The fitted rate at a threshold past the base.
    public func ratePerHour(at threshold: Float) -> Double {
        ratePerHourAtBase * exp(-(Self.logit(threshold) - base) / meanExcess)
    }

    /// The threshold where the fitted rate falls to `rate` (below the rate at the base).
    public func threshold(forRatePerHour rate: Double) -> Float {
        let logit = base + meanExcess * log(ratePerHourAtBase / rate)
        return Float(LogOdds.sigmoid(logit))
    }

    static func logit(_ threshold: Float) -> Double { LogOdds.logit(Double(threshold), margin: 1e-12) }
}
