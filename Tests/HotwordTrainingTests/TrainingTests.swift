import Foundation
import HotwordCore
import HotwordTraining
import Testing

@Suite struct TrainingTests {
    /// A small version of the shipped stack: strided convolution, depthwise-separable dilated blocks.
    static let smallStack = LayerSpec.dilatedDepthwiseStack(channels: 8, firstKernel: 2, firstStride: 2, kernel: 3,
                                                            dilations: [1, 2], dropout: 0.1)

    func accuracy(_ scores: [Float], _ labels: [Float]) -> Double {
        Double(zip(scores, labels).filter { ($0 > 0.5) == ($1 > 0.5) }.count) / Double(labels.count)
    }

    @Test func adamReducesLossOnLogisticRegression() throws {
        // One dense layer on one frame: y = 1 when x·(1, −2, 0.5) > 0.
        let count = 128
        let windows = NetworkTestData.windows(count: count, frames: 1, features: 3, seed: 4)
        let labels = (0..<count).map { i -> Float in
            let x = windows.values[(3 * i)..<(3 * i + 3)].map { $0 }
            return x[0] - 2 * x[1] + 0.5 * x[2] > 0 ? 1 : 0
        }
        let network = try Network(features: 3, layers: [.dense(outputs: 1, activation: .sigmoid)], seed: 1)
        let adam = Adam(network: network, configuration: AdamConfiguration(learningRate: 0.05))
        let first = try network.trainStep(windows, targets: .binary(labels), optimizer: adam)
        var last = first
        for _ in 0..<200 { last = try network.trainStep(windows, targets: .binary(labels), optimizer: adam) }
        #expect(last < first / 3, "loss \(first) → \(last)")
        #expect(accuracy(try network.predict(windows), labels) > 0.95)
        #expect(adam.steps == 201)
    }

    @Test func weightDecayShrinksWeightsButNotBiases() throws {
        let network = try Network(features: 4, layers: [.dense(outputs: 1, activation: .sigmoid)], seed: 1)
        let start: [Float] = [0.5, -1, 2, 0.25, 0.3]  // four weights, then the bias
        try network.setParameterValues(start)
        let adam = Adam(network: network, configuration: AdamConfiguration(learningRate: 0.1, weightDecay: 0.5))
        network.zeroGradients()  // no gradient: the step is the decay alone
        adam.step()
        let after = network.parameterValues
        for i in 0..<4 { #expect(abs(after[i] - start[i] * 0.95) < 1e-6, "weight \(i) shrinks by lr·decay") }
        #expect(after[4] == start[4], "the bias does not decay")
    }

    @Test func gradientClippingBoundsTheGlobalNorm() throws {
        let windows = NetworkTestData.windows(count: 16, frames: 4, features: 3, seed: 8, scale: 5)
        let labels = (0..<16).map { Float($0 % 2) }
        func train(clip: Float?) throws -> (norm: Float, values: [Float]) {
            let network = try Network(features: 3, layers: [.convolution(outputs: 4, kernel: 4, activation: .tanh),
                                                            .dense(outputs: 1, activation: .sigmoid)], seed: 5)
            let adam = Adam(network: network, configuration: AdamConfiguration(learningRate: 0.01, gradientClipNorm: clip))
            try network.trainStep(windows, targets: .binary(labels), optimizer: adam)
            let gradients = network.parameterGradients
            let norm = gradients.reduce(0) { $0 + $1 * $1 }.squareRoot()
            #expect(abs(adam.lastGradientNorm - norm) <= 1e-5 * norm, "the reported norm is the gradients' norm")
            let reversed = NetworkTestData.windows(count: 16, frames: 4, features: 3, seed: 9, scale: 0.1)
            try network.trainStep(reversed, targets: .binary(labels), optimizer: adam)
            return (norm, network.parameterValues)
        }
        let free = try train(clip: nil)
        let loose = try train(clip: 1e6)
        let clipped = try train(clip: free.norm / 10)
        #expect(loose.values == free.values, "a clip above the norm changes nothing")
        #expect(clipped.values != free.values, "clipping the first step changes how the moments weigh the second")
    }

    @Test func smallNetworkLearnsSeparableWindows() throws {
        let network = try Network(features: 6, layers: Self.smallStack, seed: 21)
        let frames = NetworkTestData.alignedFrames(atLeast: network.minimumFrames + 4, stride: network.totalStride)
        let train = NetworkTestData.separable(count: 256, frames: frames, features: 6, seed: 1)
        let test = NetworkTestData.separable(count: 128, frames: frames, features: 6, seed: 2)
        let adam = Adam(network: network, configuration: AdamConfiguration(learningRate: 0.01, gradientClipNorm: 5))
        let batch = 32, windowSize = frames * 6
        var firstEpochLoss: Float = 0, lastEpochLoss: Float = 0
        for epoch in 0..<12 {
            var epochLoss: Float = 0
            for start in stride(from: 0, to: train.windows.count, by: batch) {
                let values = Array(train.windows.values[(start * windowSize)..<((start + batch) * windowSize)])
                epochLoss += try network.trainStep(WindowBatch(values: values, count: batch, frames: frames),
                                                   targets: .binary(Array(train.labels[start..<(start + batch)])),
                                                   weights: (0..<batch).map { train.labels[start + $0] > 0 ? 1 : 1.5 },
                                                   optimizer: adam)
            }
            if epoch == 0 { firstEpochLoss = epochLoss }
            lastEpochLoss = epochLoss
        }
        #expect(lastEpochLoss < firstEpochLoss / 4, "loss \(firstEpochLoss) → \(lastEpochLoss)")
        #expect(accuracy(try network.predict(test.windows), test.labels) == 1)
    }

    /// Steps of the small stack (with dropout) on fixed batches; returns the final state.
    func trainedState(seed: UInt64, threads: Int) throws -> NetworkState {
        let network = try Network(features: 6, layers: Self.smallStack, seed: seed, threads: threads)
        let adam = Adam(network: network, configuration: AdamConfiguration(learningRate: 0.01, weightDecay: 0.01, gradientClipNorm: 1))
        let data = NetworkTestData.separable(count: 96, frames: network.minimumFrames + 3, features: 6, seed: 3)
        for _ in 0..<5 { try network.trainStep(data.windows, targets: .binary(data.labels), optimizer: adam) }
        return network.state
    }

    @Test func sameSeedGivesBitIdenticalWeights() throws {
        let first = try trainedState(seed: 7, threads: 2)
        #expect(try trainedState(seed: 7, threads: 2) == first)
        #expect(try trainedState(seed: 7, threads: 1) == first, "the thread count must not change the results")
        #expect(try trainedState(seed: 8, threads: 2) != first)
    }

    @Test func largeBatchesGiveTheSameResultsOnOneOrTwoThreads() throws {
        // Big enough that matrix products, reductions and dropout are cut into several parts.
        func logitsAndGradients(threads: Int) throws -> [Float] {
            let network = try Network(features: 40, layers: LayerSpec.dilatedDepthwiseStack(channels: 16, dropout: 0.1),
                                      seed: 3, threads: threads)
            let windows = NetworkTestData.windows(count: 48, frames: network.minimumFrames, features: 40, seed: 1)
            let logits = try network.forward(windows, training: true)
            network.zeroGradients()
            try network.backward(logitGradient: logits.map { $0 * 0.1 })
            return logits + network.parameterGradients + network.state.runningStatistics
        }
        #expect(try logitsAndGradients(threads: 1) == logitsAndGradients(threads: 2))
    }

    @Test func restoringAStateRestoresPredictions() throws {
        let network = try Network(features: 6, layers: Self.smallStack, seed: 2)
        let data = NetworkTestData.separable(count: 32, frames: network.minimumFrames, features: 6, seed: 5)
        let adam = Adam(network: network)
        try network.trainStep(data.windows, targets: .binary(data.labels), optimizer: adam)
        let saved = network.state
        let predictions = try network.predict(data.windows)
        for _ in 0..<3 { try network.trainStep(data.windows, targets: .binary(data.labels), optimizer: adam) }
        #expect(try network.predict(data.windows) != predictions)
        try network.restore(saved)
        #expect(try network.predict(data.windows) == predictions)
    }

    @Test func dropoutActsOnlyInTraining() throws {
        let network = try Network(features: 4, layers: [.dense(outputs: 32, activation: .tanh, dropout: 0.5),
                                                         .dense(outputs: 1, activation: .sigmoid)], seed: 1)
        let windows = NetworkTestData.windows(count: 8, frames: 1, features: 4, seed: 1)
        #expect(try network.forward(windows, training: false) == network.forward(windows, training: false))
        let first = try network.forward(windows, training: true)
        #expect(try network.forward(windows, training: true) != first, "each training pass draws new masks")
        network.trainingPasses = 0
        #expect(try network.forward(windows, training: true) == first, "masks depend only on the seed and the pass number")
    }

    @Test func badInputsAreReportedNotCrashed() throws {
        #expect(throws: NetworkError.invalidNetwork("no layers")) { try Network(features: 4, layers: [], seed: 1) }
        #expect(throws: NetworkError.self) {
            try Network(features: 4, layers: [.dense(outputs: 1, activation: .relu)], seed: 1)
        }
        #expect(throws: NetworkError.self) {
            try Network(features: 4, layers: [.convolution(outputs: 3, kernel: 0, activation: .relu),
                                              .dense(outputs: 1, activation: .sigmoid)], seed: 1)
        }
        let network = try Network(features: 4, layers: [.convolution(outputs: 3, kernel: 5, activation: .relu),
                                                        .dense(outputs: 1, activation: .sigmoid)], seed: 1)
        let short = NetworkTestData.windows(count: 2, frames: 4, features: 4, seed: 1)
        #expect(throws: NetworkError.windowTooShort(frames: 4, minimum: 5)) { try network.predict(short) }
        let windows = NetworkTestData.windows(count: 2, frames: 5, features: 4, seed: 1)
        let adam = Adam(network: network)
        #expect(throws: NetworkError.self) { try network.trainStep(windows, targets: .binary([1]), optimizer: adam) }
        #expect(throws: NetworkError.self) { try network.trainStep(windows, targets: .classes([0, 1]), optimizer: adam) }
        #expect(throws: NetworkError.self) { try network.trainStep(windows, targets: .binary([1, 2]), optimizer: adam) }
        _ = try network.forward(windows, training: false)
        #expect(throws: NetworkError.backwardWithoutTrainingForward) { try network.backward(logitGradient: [0, 0]) }
    }
}
