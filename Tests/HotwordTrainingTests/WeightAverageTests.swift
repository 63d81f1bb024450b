import HotwordCore
@testable import HotwordTraining
import Testing

@Suite struct WeightAverageTests {
    /// The average follows average ← d·average + (1 − d)·current over parameters and batch-norm
    /// statistics alike, and leaves the trained weights in the network.
    @Test func averageFollowsTheWeightsAndLeavesTheTrainedOnesInPlace() throws {
        let network = try Network(features: 6, layers: TrainingTests.smallStack, seed: 2, threads: 1)
        let data = NetworkTestData.separable(count: 32, frames: network.minimumFrames, features: 6, seed: 5)
        let adam = Adam(network: network, configuration: AdamConfiguration(learningRate: 0.01))
        let start = network.state
        let average = WeightAverage(of: network)
        #expect(average.whileApplied { network.state } == start, "the average starts at the network's state")

        var expected = start
        for _ in 0..<3 {
            try network.trainStep(data.windows, targets: .binary(data.labels), optimizer: adam)
            average.update(decay: 0.75)
            let current = network.state
            expected.parameters = zip(expected.parameters, current.parameters).map { 0.75 * $0 + 0.25 * $1 }
            expected.runningStatistics = zip(expected.runningStatistics, current.runningStatistics).map { 0.75 * $0 + 0.25 * $1 }
        }
        let trained = network.state
        let averaged = average.whileApplied { network.state }
        #expect(network.state == trained, "whileApplied puts the trained weights back")
        #expect(averaged != trained)
        for (a, e) in zip(averaged.parameters + averaged.runningStatistics, expected.parameters + expected.runningStatistics) {
            #expect(abs(a - e) <= 1e-6 * max(1, abs(e)), "averaged \(a), expected \(e)")
        }
    }

    @Test func decayGivesTheTimeConstantInSteps() {
        #expect(WeightAverage.decay(epochs: 1, stepsPerEpoch: 500) == 1 - 1 / Float(500))
        #expect(WeightAverage.decay(epochs: 0.5, stepsPerEpoch: 400) == 1 - 1 / Float(200))
        #expect(WeightAverage.decay(epochs: 0.001, stepsPerEpoch: 10) == 0, "never less than one step: the current weights")
    }
}
