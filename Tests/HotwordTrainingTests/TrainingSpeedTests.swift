import Foundation
import HotwordTraining
import Testing

/// Throughput of the shipped network, for the record rather than as a check: run it in release
/// mode with `HOTWORD_NN_BENCHMARK=1 swift test -c release --filter TrainingSpeedTests`.
@Suite struct TrainingSpeedTests {
    @Test(.enabled(if: ProcessInfo.processInfo.environment["HOTWORD_NN_BENCHMARK"] != nil))
    func forwardBackwardThroughput() throws {
        let threads = Int(ProcessInfo.processInfo.environment["HOTWORD_NN_THREADS"] ?? "") ?? 2
        let network = try Network(features: 40, layers: LayerSpec.dilatedDepthwiseStack(), seed: 1, threads: threads)
        let adam = Adam(network: network)
        let batch = 64, frames = 183
        let windows = NetworkTestData.windows(count: batch, frames: frames, features: 40, seed: 2)
        let labels = (0..<batch).map { Float($0 % 2) }
        for _ in 0..<5 { try network.trainStep(windows, targets: .binary(labels), optimizer: adam) }
        let steps = 60
        let start = Date()
        for _ in 0..<steps { try network.trainStep(windows, targets: .binary(labels), optimizer: adam) }
        let seconds = Date().timeIntervalSince(start)
        let rate = Double(steps * batch) / seconds
        print("train step (forward + backward + Adam), batch \(batch) × \(frames) frames, \(threads) threads: \(Int(rate)) windows/s")
        let predictStart = Date()
        for _ in 0..<steps { _ = try network.predict(windows) }
        print("predict: \(Int(Double(steps * batch) / Date().timeIntervalSince(predictStart))) windows/s")
        #expect(rate > 0)
    }
}
