import Foundation
@testable import HotwordTraining
import Testing

/// The thresholds tuning and evaluation sweep.
@Suite("tuning thresholds")
struct TuningThresholdsTests {
    @Test func aNetworkAloneIsSweptFromOneHalfUp() {
        let alone = Tuning.thresholds(checked: false)
        #expect(abs(alone[0] - 0.5) < 1e-6)
        #expect(zip(alone, alone.dropFirst()).allSatisfy { $0 < $1 })
        #expect(abs(alone.last! - 0.999994) < 1e-6)
    }

    /// A checked network may fire far more often for the same false alarms: its sweep reaches
    /// down to logit −2 and is otherwise the same.
    @Test func aCheckedNetworkIsSweptFromLogitMinusTwo() {
        let checked = Tuning.thresholds(checked: true), alone = Tuning.thresholds(checked: false)
        #expect(abs(checked[0] - 0.1192) < 1e-4)
        #expect(checked.count == alone.count + 8)
        #expect(zip(checked.suffix(alone.count), alone).allSatisfy { abs($0 - $1) < 1e-7 })
    }
}

/// Sensitivity 0.5 under a miss budget (`hotword tune --miss-budget`).
@Suite("miss budget")
struct MissBudgetTests {
    /// A sweep of 20 keywords, missing one more every logit from 1.9 up.
    static let points = Tuning.thresholds(checked: false).map { threshold in
        let logit = log(threshold / (1 - threshold))
        return OperatingPoint(sensitivity: 0.5, threshold: threshold, keywords: 20, misses: max(0, Int((logit - 1.9).rounded(.down)) + 1),
                              falseAlarms: 0, negativeHours: 1, falseAlarmTimes: [], missedKeywords: [])
    }

    @Test func theStrictestThresholdWithinTheBudgetIsChosen() {
        // Two misses of 20 (10 %) up to logit 3.75: the highest threshold missing no more.
        let chosen = Tuning.defaultThreshold(Self.points, targeted: 0.5, missBudget: 0.1)
        #expect(abs(chosen - 1 / (1 + exp(-3.75))) < 1e-6, "\(chosen)")
        #expect(Tuning.defaultThreshold(Self.points, targeted: 0.5, missBudget: 0.2) > chosen)
    }

    /// Set by the budget, sensitivity 0.5 lies above the false-alarm target's threshold, which
    /// becomes sensitivity 1's; without a budget, 1 is ten times the target.
    @Test func theTargetsThresholdIsTheLenientEnd() {
        // 1000 false alarms an hour at logit 0, ten times fewer every logit: 1/h at logit 3.
        let points = Self.points.map { point in
            var point = point
            point.falseAlarms = Int((1000 / pow(10, log(Double(point.threshold) / (1 - Double(point.threshold))))).rounded())
            return point
        }
        let budgeted = Tuning.operatingThresholds(points, target: 1, missBudget: 0.1)
        let plain = Tuning.operatingThresholds(points, target: 1)
        #expect(abs(budgeted.middle - 1 / (1 + exp(-3.75))) < 1e-6 && plain.middle < budgeted.middle, "\(budgeted) \(plain)")
        #expect(budgeted.lenient == plain.middle && plain.lenient < plain.middle, "\(budgeted) \(plain)")
        #expect(budgeted.strict == plain.strict)
    }

    /// The false-alarm target is a floor: a budget never makes the model more sensitive than the
    /// target, and with no keyword in the stream, or none heard within the budget, it decides nothing.
    @Test func theFalseAlarmTargetIsAFloor() {
        let strict: Float = 1 / (1 + exp(-6))
        #expect(Tuning.defaultThreshold(Self.points, targeted: strict, missBudget: 0.1) == strict)
        let silent = Self.points.map { point in var point = point; point.keywords = 0; point.misses = 0; return point }
        #expect(Tuning.defaultThreshold(silent, targeted: 0.5, missBudget: 0.1) == 0.5)
        let deaf = Self.points.map { point in var point = point; point.misses = 20; return point }
        #expect(Tuning.defaultThreshold(deaf, targeted: 0.5, missBudget: 0.1) == 0.5)
    }
}

/// The false-alarm target held on every source on its own (`hotword tune --every-source`).
@Suite("every source")
struct EverySourceTests {
    static func logit(_ threshold: Float) -> Float { log(threshold / (1 - threshold)) }

    /// The worst source's rate at each threshold of the sweep, falling a decade a logit from 1000/h
    /// at logit 0 (1/h at logit 3), except for one stricter threshold where a detection moved.
    static let worst = Tuning.thresholds(checked: false).map { threshold in
        (threshold: threshold, perHour: abs(logit(threshold) - 5) < 0.01 ? 2 : 1000 / pow(10, Double(logit(threshold))))
    }

    @Test func theLowestThresholdFromWhichUpNoSourceIsOverTheTarget() {
        // Over 1/h up to logit 3 and again at logit 5: from 5.25 up every source is within.
        let floor = Tuning.everySourceThreshold(Self.worst, target: 1)
        #expect(abs(Self.logit(floor) - 5.25) < 1e-3, "\(Self.logit(floor))")
        // No alarm anywhere: the lowest threshold; a source over everywhere: the highest.
        let quiet = Self.worst.map { ($0.threshold, 0.0) }, loud = Self.worst.map { ($0.threshold, 50.0) }
        #expect(Tuning.everySourceThreshold(quiet, target: 1) == Self.worst.first!.threshold)
        #expect(Tuning.everySourceThreshold(loud, target: 1) == Self.worst.last!.threshold)
    }

    /// The worst source's threshold is a floor under the default, which a miss budget can still
    /// raise but never lower; the floor is the lenient end whenever it lies above the pooled
    /// target's threshold — sensitivity 1 keeps every source within the target, never ten times it.
    @Test func theWorstSourcesThresholdIsAFloorUnderTheDefault() {
        let points = MissBudgetTests.points.map { point in
            var point = point
            point.falseAlarms = Int((1000 / pow(10, Double(Self.logit(point.threshold)))).rounded())
            return point
        }
        let pooled = Tuning.operatingThresholds(points, target: 1)
        let floor: Float = 1 / (1 + exp(-4.5))
        let raised = Tuning.operatingThresholds(points, target: 1, floor: floor)
        #expect(raised.middle == floor && pooled.middle < floor, "\(raised) \(pooled)")
        #expect(raised.lenient == floor && raised.strict == pooled.strict, "\(raised) \(pooled)")
        // A budget of 10 % affords logit 3.75, below the floor: the floor holds.
        #expect(Tuning.operatingThresholds(points, target: 1, missBudget: 0.1, floor: floor).middle == floor)
        // A budget of 50 % affords stricter than the floor: the budget sets it.
        let budgeted = Tuning.operatingThresholds(points, target: 1, missBudget: 0.5, floor: floor)
        #expect(budgeted.middle > floor && budgeted.lenient == floor, "\(budgeted)")
    }
}
