import HotwordTraining
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
