import Foundation
import HotwordCore
import HotwordTraining
import Testing

/// Central finite differences of the training-mode loss against the backward pass, for every
/// parameter (or a fixed sample of them) of small networks built to cover each operation.
/// The network computes in Float, so steps are large-ish (1e-2) where the activations are smooth.
@Suite struct GradientCheckTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let layers: [LayerSpec]
        var features = 5
        var batch = 4
        var extraFrames = 3
        /// Finite-difference step; ReLU needs a small one so that no unit crosses its kink.
        var step: Float = 1e-2
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "strided and dilated convolutions, tanh, sigmoid", layers: [
            .convolution(outputs: 6, kernel: 3, stride: 2, activation: .tanh),
            .convolution(outputs: 5, kernel: 2, dilation: 2, activation: .sigmoid),
            .dense(outputs: 2, activation: .sigmoid),
        ]),
        Case(name: "batch norm, depthwise with dilation and stride, softmax output", layers: [
            .convolution(outputs: 6, kernel: 3, batchNorm: true, activation: .tanh),
            .depthwiseConvolution(kernel: 3, dilation: 2, batchNorm: true, activation: .linear),
            .depthwiseConvolution(kernel: 2, stride: 2, activation: .tanh),
            .dense(outputs: 3, activation: .softmax),
        ]),
        Case(name: "dense with batch norm, hidden softmax, pointwise convolution", layers: [
            .dense(outputs: 6, batchNorm: true, activation: .softmax),
            .convolution(outputs: 4, kernel: 1, batchNorm: true, activation: .tanh),
            .convolution(outputs: 4, kernel: 4, stride: 4, activation: .sigmoid),
            .dense(outputs: 1, batchNorm: true, activation: .sigmoid),
        ], extraFrames: 6),
        Case(name: "relu", layers: [
            .convolution(outputs: 8, kernel: 2, activation: .relu),
            .dense(outputs: 6, batchNorm: true, activation: .relu),
            .dense(outputs: 1, activation: .sigmoid),
        ], step: 1e-3),
        Case(name: "dropout", layers: [
            .convolution(outputs: 8, kernel: 2, activation: .tanh, dropout: 0.3),
            .dense(outputs: 6, activation: .tanh, dropout: 0.5),
            .dense(outputs: 1, activation: .sigmoid),
        ]),
        Case(name: "gru through time", layers: [
            .gru(hidden: 5),
            .dense(outputs: 1, activation: .sigmoid),
        ], extraFrames: 6),
        Case(name: "gru between convolutions", layers: [
            .convolution(outputs: 4, kernel: 2, stride: 2, activation: .tanh),
            .gru(hidden: 4),
            .convolution(outputs: 3, kernel: 2, dilation: 2, activation: .tanh),
            .dense(outputs: 3, activation: .softmax),
        ], extraFrames: 4),
    ]

    /// Targets and window weights (deliberately unequal) for a network's output kind.
    func targets(for network: Network, batch: Int) -> Targets {
        var random = SeededRandom(seed: 5)
        if network.outputActivation == .softmax {
            return .classes((0..<batch).map { _ in Int(random.next() % UInt64(network.outputCount)) })
        }
        return .binary((0..<batch * network.outputCount).map { _ in random.uniform() })
    }

    func loss(_ network: Network, _ windows: WindowBatch, _ targets: Targets, _ weights: [Float]) throws -> (Float, [Float]) {
        network.trainingPasses = 0  // the same dropout masks every time
        let logits = try network.forward(windows, training: true)
        switch targets {
        case .binary(let labels):
            return try Loss.binaryCrossEntropy(logits: logits, targets: labels, weights: weights, outputs: network.outputCount)
        case .classes(let classes):
            return try Loss.softmaxCrossEntropy(logits: logits, classes: classes, weights: weights, outputs: network.outputCount)
        }
    }

    @Test(arguments: cases)
    func backwardMatchesFiniteDifferences(_ testCase: Case) throws {
        let network = try Network(features: testCase.features, layers: testCase.layers, seed: 3, threads: 1)
        let windows = NetworkTestData.windows(count: testCase.batch, frames: network.minimumFrames + testCase.extraFrames,
                                              features: testCase.features, seed: 9)
        let targets = targets(for: network, batch: testCase.batch)
        let weights = (0..<testCase.batch).map { Float(1 + $0) / 2 }
        // Move off the initial values (zero biases, unit batch-norm scales) so every path matters.
        let start = network.parameterValues
        var random = SeededRandom(seed: 17)
        try network.setParameterValues(start.map { $0 + 0.2 * random.normal() })
        let values = network.parameterValues

        let (_, logitGradient) = try loss(network, windows, targets, weights)
        network.zeroGradients()
        try network.backward(logitGradient: logitGradient)
        let analytic = network.parameterGradients

        let step = testCase.step
        var worst: Float = 0
        var worstIndex = 0
        for index in values.indices {
            var shifted = values
            shifted[index] = values[index] + step
            try network.setParameterValues(shifted)
            let plus = try loss(network, windows, targets, weights).0
            shifted[index] = values[index] - step
            try network.setParameterValues(shifted)
            let minus = try loss(network, windows, targets, weights).0
            let numeric = (plus - minus) / (2 * step)
            let error = abs(numeric - analytic[index]) / max(abs(numeric) + abs(analytic[index]), 1e-2)
            if error > worst { (worst, worstIndex) = (error, index) }
        }
        try network.setParameterValues(values)
        #expect(worst < 2e-2, "\(testCase.name): worst relative error \(worst) at parameter \(worstIndex) of \(values.count)")
        let largest = analytic.map(abs).max()!
        #expect(largest > 1e-3, "the gradient must not vanish")
    }

    @Test func binaryCrossEntropyGradient() throws {
        let logits: [Float] = [-3, -0.5, 0, 0.7, 2.5, 8]
        let targets: [Float] = [0, 1, 0.3, 1, 0, 1]
        let weights: [Float] = [1, 0.5, 2]
        let (loss, gradient) = try Loss.binaryCrossEntropy(logits: logits, targets: targets, weights: weights, outputs: 2)
        let expected = (0..<6).map { i -> Double in
            let z = Double(logits[i]), y = Double(targets[i])
            let p = 1 / (1 + Foundation.exp(-z))
            return Double(weights[i / 2]) * -(y * Foundation.log(p) + (1 - y) * Foundation.log(1 - p))
        }.reduce(0, +) / 6
        #expect(abs(Double(loss) - expected) < 1e-5)
        try checkLossGradient(logits: logits, gradient: gradient) {
            try Loss.binaryCrossEntropy(logits: $0, targets: targets, weights: weights, outputs: 2).loss
        }
    }

    @Test func softmaxCrossEntropyGradient() throws {
        let logits: [Float] = [1, -2, 0.5, 3, 3, -1, 0, 0, 0]
        let classes = [2, 0, 1]
        let weights: [Float] = [1, 3, 0.25]
        let (loss, gradient) = try Loss.softmaxCrossEntropy(logits: logits, classes: classes, weights: weights, outputs: 3)
        let expected = (0..<3).map { row -> Double in
            let z = logits[(row * 3)..<(row * 3 + 3)].map(Double.init)
            let logSum = Foundation.log(z.map(Foundation.exp).reduce(0, +))
            return Double(weights[row]) * (logSum - z[classes[row]])
        }.reduce(0, +) / 3
        #expect(abs(Double(loss) - expected) < 1e-5)
        try checkLossGradient(logits: logits, gradient: gradient) {
            try Loss.softmaxCrossEntropy(logits: $0, classes: classes, weights: weights, outputs: 3).loss
        }
    }

    func checkLossGradient(logits: [Float], gradient: [Float], _ loss: ([Float]) throws -> Float) throws {
        let step: Float = 1e-2
        for index in logits.indices {
            var shifted = logits
            shifted[index] += step
            let plus = try loss(shifted)
            shifted[index] -= 2 * step
            let minus = try loss(shifted)
            let numeric = (plus - minus) / (2 * step)
            #expect(abs(numeric - gradient[index]) < 1e-3, "logit \(index): numeric \(numeric), analytic \(gradient[index])")
        }
    }
}
