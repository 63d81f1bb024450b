import Foundation
import HotwordCore
import HotwordTestSupport
import Testing

@Suite struct StreamingNetworkTests {
    func randomFrames(_ count: Int, width: Int, seed: UInt64) -> [[Float]] {
        var rng = SeededGenerator(seed: seed)
        return (0..<count).map { _ in rng.floats(width, scale: 2) }
    }

    func streamedOutputs(_ model: KeywordModel, _ frames: [[Float]]) -> [[Float]] {
        let network = StreamingNetwork(model: model)
        return frames.compactMap { frame in frame.withUnsafeBufferPointer { network.push($0.baseAddress!) }.map(Array.init) }
    }

    @Test(arguments: [Activation.sigmoid, .softmax])
    func streamingMatchesTheWholeSequenceEquations(output: Activation) throws {
        let model = NetworkFixtures.everyLayerKind(keywords: ["hey susi", "computer"], output: output)
        try model.validate()
        let frames = randomFrames(120, width: 40, seed: 1)
        let streamed = streamedOutputs(model, frames)
        let reference = NetworkFixtures.reference(model, frames: frames)
        #expect(streamed.count == 60, "stride 2 halves the output rate")
        #expect(streamed.count == reference.count)
        var worst = 0.0
        for (s, r) in zip(streamed, reference) {
            for (a, b) in zip(s, r) { worst = max(worst, abs(Double(a) - b)) }
        }
        #expect(worst < 1e-4, "max abs difference \(worst)")
    }

    /// Two networks side by side stored as one (`hotword ensemble`): their pointwise convolutions
    /// are grouped, each group its own matrix over its own channels.
    @Test func groupedPointwiseConvolutionsMatchTheEquations() throws {
        var rng = SeededGenerator(seed: 5)
        let model = KeywordModel(
            keywords: ["computer"], frontend: FrontendConfig(melBands: 40),
            layers: [
                NetworkFixtures.conv(&rng, inputs: 40, outputs: 32, kernel: 3, stride: 3),
                NetworkFixtures.conv(&rng, inputs: 32, outputs: 32, kernel: 1, groups: 2),
                NetworkFixtures.conv(&rng, inputs: 32, outputs: 32, kernel: 5, dilation: 2, depthwise: true, activation: .linear),
                NetworkFixtures.conv(&rng, inputs: 32, outputs: 24, kernel: 1, groups: 4),
                NetworkFixtures.dense(&rng, inputs: 24, outputs: 1, activation: .sigmoid),
            ])
        try model.validate()
        let frames = randomFrames(90, width: 40, seed: 3)
        let streamed = streamedOutputs(model, frames), reference = NetworkFixtures.reference(model, frames: frames)
        #expect(streamed.count == 30 && reference.count == 30)
        let worst = zip(streamed, reference).flatMap { zip($0, $1).map { abs(Double($0) - $1) } }.max() ?? .infinity
        #expect(worst < 1e-4, "max abs difference \(worst)")
    }

    @Test func resetForgetsHistory() {
        let model = NetworkFixtures.everyLayerKind()
        let frames = randomFrames(40, width: 40, seed: 2)
        let network = StreamingNetwork(model: model)
        let first = frames.compactMap { f in f.withUnsafeBufferPointer { network.push($0.baseAddress!) }.map(Array.init) }
        network.reset()
        let second = frames.compactMap { f in f.withUnsafeBufferPointer { network.push($0.baseAddress!) }.map(Array.init) }
        #expect(first == second)
        #expect(first != streamedOutputs(model, Array(frames.dropFirst(2))), "history must matter")
    }

    @Test func sizeFigures() {
        let model = NetworkFixtures.everyLayerKind()
        #expect(model.totalStride == 2)
        // conv k3 (3) then, at half rate, depthwise k5 (+4·2) and dilated k3 d2 (+4·2).
        #expect(model.receptiveField == 19)
        // The dilated convolution's two groups see 8 of its 16 inputs each.
        let perOutput = 40 * 3 * 24 + 5 * 24 + 24 * 16 + 16 * 3 * 8 + 3 * 12 * 16 + 3 * 12 * 12 + 12 * 8 + 8
        #expect(model.multiplyAddsPerSecond == 50 * Double(perOutput))
    }

    @Test func sensitivityInterpolatesBetweenTunedPointsInLogOdds() {
        let map = SensitivityMap(points: [.init(sensitivity: 0, threshold: 0.9), .init(sensitivity: 0.5, threshold: 0.6),
                                          .init(sensitivity: 1, threshold: 0.2)])
        func logit(_ p: Float) -> Float { log(p / (1 - p)) }
        #expect(map.threshold(forSensitivity: 0) == 0.9)
        #expect(abs(logit(map.threshold(forSensitivity: 0.25)) - (logit(0.9) + logit(0.6)) / 2) < 1e-4)
        #expect(map.threshold(forSensitivity: 0.5) == 0.6)
        #expect(abs(logit(map.threshold(forSensitivity: 0.75)) - (logit(0.6) + logit(0.2)) / 2) < 1e-4)
        #expect(map.threshold(forSensitivity: 2) == 0.2, "clamped to [0, 1]")
        for sensitivity: Float in [0, 0.1, 0.25, 0.5, 0.55, 0.9, 1] {
            #expect(abs(map.sensitivity(forThreshold: map.threshold(forSensitivity: sensitivity)) - sensitivity) < 1e-4)
        }
    }

    /// A tuned map's anchors sit near 1 (computer's: 0.9997, 0.9975, 0.8622): each 0.05 of
    /// sensitivity must move the logit by the same amount, not by 1.9 first and 0.6 after.
    @Test func equalSensitivityStepsAreEqualStepsOfTheNetworksLogit() {
        let map = SensitivityMap(points: [.init(sensitivity: 0, threshold: 0.9997), .init(sensitivity: 0.5, threshold: 0.9975),
                                          .init(sensitivity: 1, threshold: 0.8622)])
        func logit(_ p: Float) -> Double { log(Double(p) / (1 - Double(p))) }
        let steps = stride(from: Float(0.5), to: 1, by: 0.05).map {
            logit(map.threshold(forSensitivity: $0)) - logit(map.threshold(forSensitivity: $0 + 0.05))
        }
        for step in steps { #expect(abs(step - steps[0]) < 0.01, "\(steps)") }
        #expect(steps[0] < 0.5, "\(steps)")
    }
}
