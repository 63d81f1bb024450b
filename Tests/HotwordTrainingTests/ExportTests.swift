import Foundation
import HotwordCore
import HotwordTraining
import Testing

@Suite struct ExportTests {
    /// A few large Adam steps on random targets move every parameter (batch-norm scales and
    /// shifts, biases) and the running statistics away from their initial values.
    func prepare(_ network: Network, seed: UInt64) throws {
        let adam = Adam(network: network, configuration: AdamConfiguration(learningRate: 0.05))
        for step in 0..<12 {
            let windows = NetworkTestData.windows(count: 6, frames: network.minimumFrames + 5, features: network.features,
                                                  seed: seed + UInt64(step), scale: 1.5, offset: 0.7)
            var random = SeededRandom(seed: seed &* 31 + UInt64(step))
            let targets: Targets = network.outputActivation == .sigmoid
                ? .binary((0..<6 * network.outputCount).map { _ in random.uniform() < 0.5 ? 1 : 0 })
                : .classes((0..<6).map { _ in Int(random.next() % UInt64(network.outputCount)) })
            try network.trainStep(windows, targets: targets, optimizer: adam)
        }
    }

    func streamedLastOutputs(_ layers: [Layer], features: Int, windows: WindowBatch, keywords: [String]) throws -> [Float] {
        let model = KeywordModel(keywords: keywords, frontend: FrontendConfig(melBands: features), layers: layers)
        try model.validate()
        let stream = StreamingNetwork(model: model)
        var outputs: [Float] = []
        let frameSize = features * windows.frames
        for w in 0..<windows.count {
            stream.reset()
            var last: [Float]?
            for t in 0..<windows.frames {
                windows.values.withUnsafeBufferPointer { values in
                    if let out = stream.push(values.baseAddress! + w * frameSize + t * features) { last = Array(out) }
                }
                if t == windows.frames - 1 { #expect(last != nil, "the stream emits on the window's last frame") }
            }
            outputs += last ?? []
        }
        return outputs
    }

    static let networks: [(name: String, layers: [LayerSpec], keywords: [String])] = [
        ("strided, depthwise dilated, batch norm", [
            .convolution(outputs: 12, kernel: 3, stride: 3, batchNorm: true, activation: .relu),
            .depthwiseConvolution(kernel: 5, dilation: 1, batchNorm: true, activation: .linear),
            .convolution(outputs: 12, kernel: 1, batchNorm: true, activation: .relu),
            .depthwiseConvolution(kernel: 3, dilation: 4, stride: 2, batchNorm: true, activation: .tanh),
            .convolution(outputs: 10, kernel: 2, dilation: 3, activation: .sigmoid, dropout: 0.2),
            .dense(outputs: 8, batchNorm: true, activation: .relu),
            .dense(outputs: 1, activation: .sigmoid),
        ], ["hey susi"]),
        ("softmax head, dense first", [
            .dense(outputs: 9, batchNorm: true, activation: .tanh),
            .convolution(outputs: 7, kernel: 4, dilation: 2, stride: 2, batchNorm: true, activation: .relu),
            .depthwiseConvolution(kernel: 3, stride: 3, activation: .softmax),
            .convolution(outputs: 3, kernel: 2, batchNorm: true, activation: .softmax),
        ], ["one", "two"]),
        ("recurrent", [
            .dense(outputs: 8, activation: .tanh),
            .gru(hidden: 6),
            .convolution(outputs: 6, kernel: 3, dilation: 2, stride: 2, batchNorm: true, activation: .relu),
            .dense(outputs: 1, activation: .sigmoid),
        ], ["hey susi"]),
    ]

    @Test(arguments: 0..<networks.count)
    func exportedModelStreamsTheSameLastOutput(networkIndex: Int) throws {
        let (name, layers, keywords) = Self.networks[networkIndex]
        let features = 10
        let network = try Network(features: features, layers: layers, seed: 11)
        try prepare(network, seed: 100)
        for extra in [0, network.totalStride, 5 * network.totalStride] {
            let frames = NetworkTestData.alignedFrames(atLeast: network.minimumFrames, stride: network.totalStride) + extra
            let windows = NetworkTestData.windows(count: 5, frames: frames, features: features, seed: 7, scale: 1.5, offset: 0.7)
            let trained = try network.predict(windows)
            let streamed = try streamedLastOutputs(network.exportLayers(), features: features, windows: windows, keywords: keywords)
            try #require(streamed.count == trained.count, "\(name)")
            let worst = zip(trained, streamed).map { abs($0 - $1) }.max()!
            #expect(worst < 1e-4, "\(name), \(frames) frames: max difference \(worst)")
            let spread = trained.max()! - trained.min()!
            #expect(spread > 1e-3, "\(name): outputs should differ between windows")
        }
    }

    @Test func figuresOfTheShippedStack() throws {
        let network = try Network(features: 40, layers: LayerSpec.dilatedDepthwiseStack(), seed: 1)
        #expect(network.receptiveField == 183)
        #expect(network.minimumFrames == 183)
        #expect(network.totalStride == 3)
        #expect(network.outputCount == 1)
        let model = KeywordModel(keywords: ["hey susi"], frontend: FrontendConfig(melBands: 40), layers: network.exportLayers())
        try model.validate()
        #expect(model.receptiveField == network.receptiveField)
        #expect(model.totalStride == network.totalStride)
        #expect(model.parameterCount < network.parameterCount, "batch norm folds away")
    }
}
