import Foundation
import HotwordTraining
import Testing

/// Throughput of the shipped network, for the record rather than as a check. Run it in release
/// mode (other test targets need `-enable-testing` there):
///   swift build -c release -Xswiftc -enable-testing --build-tests
///   HOTWORD_NN_BENCHMARK=1 HOTWORD_NN_THREADS=2 swift test -c release -Xswiftc -enable-testing --skip-build --filter TrainingSpeedTests
/// Besides wall-clock windows/s it prints the process CPU time per window: on a busy machine the
/// wall clock measures the neighbours, CPU time still measures the work.
@Suite struct TrainingSpeedTests {
    static let enabled = ProcessInfo.processInfo.environment["HOTWORD_NN_BENCHMARK"] != nil
    static let threads = Int(ProcessInfo.processInfo.environment["HOTWORD_NN_THREADS"] ?? "") ?? 2

    func measure(_ label: String, windows: Int, _ body: () throws -> Void) rethrows {
        let wallStart = Date(), cpuStart = clock()
        try body()
        let wall = Date().timeIntervalSince(wallStart), cpu = Double(clock() - cpuStart) / Double(CLOCKS_PER_SEC)
        print("\(label), \(Self.threads) threads: \(Int(Double(windows) / wall)) windows/s, "
            + "\(String(format: "%.0f", cpu / Double(windows) * 1e6)) µs CPU per window")
    }

    func run(_ name: String, layers: [LayerSpec]) throws {
        let network = try Network(features: 40, layers: layers, seed: 1, threads: Self.threads)
        let adam = Adam(network: network)
        let batch = 64, frames = max(network.minimumFrames, 183), steps = 60
        let windows = NetworkTestData.windows(count: batch, frames: frames, features: 40, seed: 2)
        let labels = (0..<batch).map { Float($0 % 2) }
        for _ in 0..<5 { try network.trainStep(windows, targets: .binary(labels), optimizer: adam) }
        try measure("\(name): train step (forward, backward, Adam), batch \(batch) × \(frames) frames", windows: steps * batch) {
            for _ in 0..<steps { try network.trainStep(windows, targets: .binary(labels), optimizer: adam) }
        }
        try measure("\(name): predict", windows: steps * batch) {
            for _ in 0..<steps { _ = try network.predict(windows) }
        }
    }

    @Test(.enabled(if: enabled))
    func shippedStackThroughput() throws {
        try run("dilated depthwise stack", layers: LayerSpec.dilatedDepthwiseStack())
    }

    @Test(.enabled(if: enabled))
    func recurrentThroughput() throws {
        try run("conv + GRU", layers: [
            .convolution(outputs: 48, kernel: 3, stride: 3, batchNorm: true, activation: .relu),
            .gru(hidden: 48),
            .dense(outputs: 1, activation: .sigmoid),
        ])
    }
}
