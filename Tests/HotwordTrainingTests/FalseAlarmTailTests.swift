import Foundation
@testable import HotwordTraining
import Testing

/// `FalseAlarmTail` and the tuning that reads low rates off it.
@Suite("false-alarm tail")
struct FalseAlarmTailTests {
    /// A sweep over tuning's thresholds of `hours` of audio whose false alarms number
    /// `count(logit)` at each threshold.
    static func sweep(hours: Double = 10, _ count: (Double) -> Int) -> [OperatingPoint] {
        Tuning.thresholds(checked: false).map { threshold in
            OperatingPoint(sensitivity: 0.5, threshold: threshold, keywords: 10, misses: 0, falseAlarms: count(logit(threshold)),
                           negativeHours: hours, falseAlarmTimes: [], missedKeywords: [])
        }
    }

    static func logit(_ threshold: Float) -> Double { log(Double(threshold) / (1 - Double(threshold))) }

    /// 2000 false alarms in 10 h at logit 0, a factor e fewer every 0.6 logits: the fit finds the
    /// slope and the threshold for a rate a hundred times below anything counted in the tail.
    @Test func anExponentialTailIsRecovered() throws {
        let tail = try #require(FalseAlarmTail(Self.sweep { Int((2000 * exp(-$0 / 0.6)).rounded()) }))
        #expect(tail.ratePerHourAtBase <= 2 && tail.ratePerHourAtBase >= 0.3, "\(tail)")
        #expect(abs(tail.meanExcess - 0.6) < 0.12, "\(tail)")
        let truth = 0.6 * log(2000 / (10 * 0.01))   // where 2000·e^(−ℓ/0.6) falls to 0.01 an hour
        #expect(abs(Self.logit(tail.threshold(forRatePerHour: 0.01)) - truth) < 0.3, "\(tail)")
        #expect(abs(tail.ratePerHour(at: tail.threshold(forRatePerHour: 0.05)) - 0.05) < 1e-6)
    }

    /// Two clips that score like the word up to logit 10 are censored where the bulk runs out:
    /// they stretch the slope by less than half, where their excesses counted out to logit 10
    /// would have more than doubled it.
    @Test func aFewClipsScoringLikeTheWordAreCensored() throws {
        let clean = try #require(FalseAlarmTail(Self.sweep { Int((2000 * exp(-$0 / 0.6)).rounded()) }))
        let counts = Self.sweep { logit in Int((2000 * exp(-logit / 0.6)).rounded()) + (logit <= 10 ? 2 : 0) }
        let outliers = try #require(FalseAlarmTail(counts))
        #expect(outliers.meanExcess < 1.5 * clean.meanExcess, "\(outliers) against \(clean)")
        // Uncensored: the whole area beyond the base over the false alarms there.
        let tail = counts.filter { Self.logit($0.threshold) >= outliers.base - 1e-6 }
        let area = zip(tail, tail.dropFirst()).reduce(0.0) { $0 + Double($1.0.falseAlarms + $1.1.falseAlarms) / 2 * (Self.logit($1.1.threshold) - Self.logit($1.0.threshold)) }
        #expect(area / Double(tail[0].falseAlarms) > 2 * clean.meanExcess)
    }

    @Test func tooFewFalseAlarmsGiveNoTail() {
        #expect(FalseAlarmTail(Self.sweep { _ in 0 }) == nil)
        #expect(FalseAlarmTail(Self.sweep { $0 < 3 ? 2 : 0 }) == nil, "two false alarms say nothing of a slope")
        #expect(FalseAlarmTail(Self.sweep { $0 < 3 ? 3 : 0 }) != nil)
    }

    /// Rates the stream counts are read as counted; rates below the tail's base come from the fit,
    /// so one false alarm more or less near the top moves the threshold a little, not to the next
    /// empty step.
    @Test func lowRatesComeFromTheFitHighOnesFromTheCount() throws {
        let counted = Self.sweep { Int((2000 * exp(-$0 / 0.6)).rounded()) }
        let (strict, middle, lenient) = Tuning.operatingThresholds(counted, target: 5)
        let lowestWithin50 = counted.filter { $0.falseAlarmsPerHour <= 50 }.map(\.threshold).min()!
        #expect(lenient == lowestWithin50, "50 an hour is counted: \(lenient) against \(lowestWithin50)")
        #expect(strict > middle && middle > lenient)
        let tail = try #require(FalseAlarmTail(counted))
        #expect(middle == tail.threshold(forRatePerHour: 5) || 5 >= tail.ratePerHourAtBase)
        #expect(strict == tail.threshold(forRatePerHour: 0.5))

        // One stray false alarm high up: counted, it pushes a 0.05/h target to the step above it;
        // the fit moves less than half as far.
        let stray = Self.sweep { logit in Int((2000 * exp(-logit / 0.6)).rounded()) + (logit <= 7 ? 1 : 0) }
        let counts = { (points: [OperatingPoint]) in points.filter { $0.falseAlarmsPerHour <= 0.05 }.map(\.threshold).min()! }
        let countedShift = Self.logit(counts(stray)) - Self.logit(counts(counted))
        let shift = Self.logit(Tuning.operatingThresholds(stray, target: 0.05).middle) - Self.logit(Tuning.operatingThresholds(counted, target: 0.05).middle)
        #expect(countedShift > 2 && shift >= 0 && shift < countedShift / 2, "counted, the stray moves it \(countedShift) logits; fitted, \(shift)")
    }

    /// What `hotword tune` reports beside the counted rate: the fit's rate at the chosen
    /// threshold where the target was read off the tail, and nothing where it was counted.
    @Test func theFittedRateIsReportedOnlyWhereTheTailChoseTheThreshold() throws {
        let counted = Self.sweep { Int((2000 * exp(-$0 / 0.6)).rounded()) }
        let low = Tuning.operatingThresholds(counted, target: 0.05).middle
        let fitted = try #require(Tuning.tailFit(counted, for: 0.05)).ratePerHour(at: low)
        #expect(abs(fitted - 0.05) < 1e-4, "\(fitted)")
        #expect(Tuning.tailFit(counted, for: 50) == nil)
        #expect(Tuning.tailFit(Self.sweep { _ in 0 }, for: 0.05) == nil)
    }

    /// Nothing counted anywhere: the lowest threshold meets every target, as before.
    @Test func aSilentSweepKeepsTheLowestThreshold() {
        let silent = Self.sweep { _ in 0 }
        let (strict, middle, lenient) = Tuning.operatingThresholds(silent, target: 0.2)
        #expect(strict == 0.5 && middle == 0.5 && lenient == 0.5)
    }
}
