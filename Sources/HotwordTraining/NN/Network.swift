import Foundation
import HotwordCore

/// A batch of feature windows, `[count][frames][features]` row-major.
public struct WindowBatch: Sendable {
    public var values: [Float]
    public var count: Int
    public var frames: Int

    public init(values: [Float], count: Int, frames: Int) {
        self.values = values
        self.count = count
        self.frames = frames
    }
}

/// What the network should output for each window of a batch.
public enum Targets: Sendable {
    /// `[count][outputs]` values in [0, 1], for a network ending in a sigmoid.
    case binary([Float])
    /// One class index per window (0 = background, k = keyword k), for a network ending in a softmax.
    case classes([Int])
}

/// A trainable keyword network: batched forward and backward passes over feature windows,
/// scoring the last frame of each window, and export to the `HotwordCore` layers that stream.
///
/// Convolutions are "valid" (no padding) and aligned to the end of their input: a layer of stride s
/// reading L frames computes outputs for its input frames L−1, L−1−s, L−1−2s, …, which are the
/// frames on which the streaming layer emits when L is a multiple of s. Each operation computes
/// only the outputs the window's last output depends on, so a window needs at least
/// `minimumFrames` frames and frames before its last `minimumFrames` are ignored (except by a GRU,
/// which reads its whole input). When the window's length is a multiple of `totalStride`, a
/// `StreamingNetwork` of the exported layers, fed the window from its first frame, emits on the
/// last frame exactly this network's evaluation-mode output (for convolutional networks; a GRU
/// after a convolution sees a few more frames when streaming).
///
/// Deterministic: weights come from `seed`, dropout masks from the seed and the pass number, and
/// all reductions run in a fixed order, so results are bit-identical for any `threads`.
/// Not thread-safe: one caller at a time.
public final class Network {
    public let features: Int
    public let layers: [LayerSpec]
    public let seed: UInt64
    /// Worker threads for the batch computations (the machines it trains on have 2–4 cores).
    public var threads: Int
    /// Training passes run so far; the dropout masks of a pass depend on this number.
    public var trainingPasses: UInt64 = 0

    let blocks: [Block]
    let operations: [any Operation]
    /// Output frames each operation computes (nil: all it can).
    private let framesNeeded: [Int?]
    /// The shortest window the network accepts (the receptive field, for convolutional networks).
    public let minimumFrames: Int
    private let input = FloatBuffer(), logits = FloatBuffer()
    private var lastForward: (training: Bool, batch: Int)?

    /// The operations of one `LayerSpec`, in order: weights, batch norm, activation, dropout.
    struct Block {
        let spec: LayerSpec
        let weights: any Operation
        let batchNorm: BatchNormOperation?
        /// Nil for the final block, whose activation the loss (or `predict`) applies.
        let activation: ActivationOperation?
        let dropout: DropoutOperation?

        var stride: Int {
            switch spec {
            case .convolution(_, _, _, let stride, _, _, _), .depthwiseConvolution(_, _, let stride, _, _, _): stride
            case .dense, .gru: 1
            }
        }

        var receptiveField: Int {
            switch spec {
            case .convolution(_, let kernel, let dilation, _, _, _, _), .depthwiseConvolution(let kernel, let dilation, _, _, _, _):
                (kernel - 1) * dilation + 1
            case .dense, .gru: 1
            }
        }
    }

    public init(features: Int, layers: [LayerSpec], seed: UInt64, threads: Int = 2) throws(NetworkError) {
        guard features > 0 else { throw .invalidNetwork("features must be positive, got \(features)") }
        guard !layers.isEmpty else { throw .invalidNetwork("no layers") }
        _ = BLAS.singleThreaded
        self.features = features
        self.layers = layers
        self.seed = seed
        self.threads = max(threads, 1)
        var random = SeededRandom(seed: seed)
        var blocks: [Block] = []
        var width = features
        for (index, spec) in layers.enumerated() {
            let isLast = index == layers.count - 1
            try Network.validate(spec, index: index, isLast: isLast)
            let block = Network.makeBlock(spec, index: index, inputs: width, isLast: isLast, seed: seed, random: &random)
            blocks.append(block)
            width = block.weights.outputChannels
        }
        self.blocks = blocks
        operations = blocks.flatMap { block -> [any Operation] in
            [block.weights] + ([block.batchNorm, block.activation, block.dropout] as [(any Operation)?]).compactMap { $0 }
        }
        var needed: [Int?] = Array(repeating: nil, count: operations.count)
        var wanted: Int? = 1
        for index in operations.indices.reversed() {
            let reads = operations[index].inputFrames(forOutputs: wanted)
            // A recurrence makes an output for every input frame it reads, all of them.
            needed[index] = reads == nil ? nil : wanted
            wanted = reads
        }
        framesNeeded = needed
        guard let minimum = Network.minimumFrames(operations, needed: needed) else {
            throw .invalidNetwork("no window length gives an output")
        }
        minimumFrames = minimum
    }

    // MARK: Shape

    /// Values per output: one per keyword (sigmoid) or background + keywords (softmax).
    public var outputCount: Int { blocks.last!.weights.outputChannels }
    /// The final activation, applied by `predict` and the loss: `.sigmoid` or `.softmax`.
    public var outputActivation: Activation { layers.last!.activation! }

    /// Feature frames per output when streaming (the product of the strides).
    public var totalStride: Int { blocks.reduce(1) { $0 * $1.stride } }

    /// Feature frames one output depends on through the convolutions (a GRU remembers longer).
    public var receptiveField: Int {
        var field = 1, spacing = 1
        for block in blocks {
            field += (block.receptiveField - 1) * spacing
            spacing *= block.stride
        }
        return field
    }

    public var parameterCount: Int { parameters.reduce(0) { $0 + $1.count } }

    var parameters: [Parameter] { operations.flatMap(\.parameters) }

    // MARK: Passes

    /// Logits (before the final sigmoid or softmax) for the last frame of each window,
    /// `[count][outputCount]`. Training mode uses batch statistics and dropout.
    public func forward(_ windows: WindowBatch, training: Bool) throws(NetworkError) -> [Float] {
        let output = try forwardPass(windows, training: training)
        return logits.array(output)
    }

    /// Adds to the gradients the effect of `logitGradient` (dLoss/dlogits, `[count][outputCount]`)
    /// for the batch of the last forward pass, which must have been a training pass.
    public func backward(logitGradient: [Float]) throws(NetworkError) {
        guard let last = lastForward, last.training else { throw .backwardWithoutTrainingForward }
        let expected = last.batch * outputCount
        guard logitGradient.count == expected else {
            throw .shapeMismatch(what: "logit gradient", expected: expected, actual: logitGradient.count)
        }
        logitGradient.withUnsafeBufferPointer { gradient in
            let parallelism = Parallelism(threads: threads)
            var current = SequenceView(pointer: UnsafeMutablePointer(mutating: gradient.baseAddress!),
                                       batch: last.batch, frames: 1, channels: outputCount)
            for (index, operation) in operations.enumerated().reversed() {
                guard let next = operation.backward(current, needsInputGradient: index > 0, parallelism: parallelism) else { break }
                current = next
            }
        }
    }

    /// Sets every gradient to zero (before the backward passes of a step).
    public func zeroGradients() {
        for parameter in parameters { parameter.gradient.zero(parameter.count) }
    }

    /// Scores in evaluation mode after the final sigmoid or softmax, `[count][outputCount]`.
    public func predict(_ windows: WindowBatch) throws(NetworkError) -> [Float] {
        let count = try forwardPass(windows, training: false)
        var scores = [Float](repeating: 0, count: count)
        scores.withUnsafeMutableBufferPointer { scores in
            for row in 0..<windows.count {
                let offset = row * outputCount
                ActivationOperation.apply(outputActivation, logits.pointer + offset, into: scores.baseAddress! + offset, count: outputCount)
            }
        }
        return scores
    }

    /// One optimisation step on a batch: training forward pass, loss, backward pass, `optimizer.step()`.
    /// `weights` scale each window's loss (class balance, hard negatives); nil means 1 for all.
    /// Returns the batch's mean weighted loss before the step.
    @discardableResult
    public func trainStep(_ windows: WindowBatch, targets: Targets, weights: [Float]? = nil, optimizer: Adam) throws(NetworkError) -> Float {
        let count = try forwardPass(windows, training: true)
        let logitValues = logits.array(count)
        let result: (loss: Float, gradient: [Float])
        switch (targets, outputActivation) {
        case (.binary(let labels), .sigmoid):
            result = try Loss.binaryCrossEntropy(logits: logitValues, targets: labels, weights: weights, outputs: outputCount)
        case (.classes(let classes), .softmax):
            result = try Loss.softmaxCrossEntropy(logits: logitValues, classes: classes, weights: weights, outputs: outputCount)
        default:
            throw .invalidTargets("\(targets.kindName) targets do not fit a network ending in \(outputActivation)")
        }
        zeroGradients()
        try backward(logitGradient: result.gradient)
        optimizer.step()
        return result.loss
    }

    /// Runs the operations; returns the number of logits written to `logits`.
    private func forwardPass(_ windows: WindowBatch, training: Bool) throws(NetworkError) -> Int {
        let expected = windows.count * windows.frames * features
        guard windows.values.count == expected else {
            throw .shapeMismatch(what: "windows of \(windows.count)×\(windows.frames)×\(features)", expected: expected,
                                 actual: windows.values.count)
        }
        guard windows.frames >= minimumFrames else { throw .windowTooShort(frames: windows.frames, minimum: minimumFrames) }
        guard windows.count > 0 else { throw .shapeMismatch(what: "windows in the batch", expected: 1, actual: 0) }
        // The network keeps its own copy: backward passes read it after the caller's array is gone.
        let copy = input.reserve(expected)
        windows.values.withUnsafeBufferPointer { copy.update(from: $0.baseAddress!, count: expected) }
        let context = ForwardContext(training: training, parallelism: Parallelism(threads: threads), round: trainingPasses)
        if training { trainingPasses += 1 }
        var current = SequenceView(pointer: copy, batch: windows.count, frames: windows.frames, channels: features)
        for (operation, needed) in zip(operations, framesNeeded) {
            let available = operation.outputFrames(inputFrames: current.frames)
            current = operation.forward(current, outputFrames: needed.map { min($0, available) } ?? available, context: context)
        }
        let count = windows.count * outputCount
        let out = logits.reserve(count)
        // The last frame of each window's output sequence.
        for b in 0..<windows.count {
            (out + b * outputCount).update(from: current.pointer + ((b + 1) * current.frames - 1) * outputCount, count: outputCount)
        }
        lastForward = (training, windows.count)
        return count
    }

    /// The shortest window for which every operation has the frames it needs.
    private static func minimumFrames(_ operations: [any Operation], needed: [Int?]) -> Int? {
        if let first = operations.first, let frames = first.inputFrames(forOutputs: needed[0]) { return frames }
        frames: for frames in 1...100_000 {
            var length = frames
            for (operation, wanted) in zip(operations, needed) {
                length = operation.outputFrames(inputFrames: length)
                if length < max(wanted ?? 1, 1) { continue frames }
            }
            return frames
        }
        return nil
    }

    // MARK: Construction

    private static func validate(_ spec: LayerSpec, index: Int, isLast: Bool) throws(NetworkError) {
        func fail(_ reason: String) -> NetworkError { .invalidLayer(index: index, kind: spec.kindName, reason: reason) }
        switch spec {
        case .convolution(let outputs, let kernel, let dilation, let stride, _, _, _):
            guard outputs > 0, kernel > 0, dilation > 0, stride > 0 else {
                throw fail("outputs \(outputs), kernel \(kernel), dilation \(dilation) and stride \(stride) must be positive")
            }
        case .depthwiseConvolution(let kernel, let dilation, let stride, _, _, _):
            guard kernel > 0, dilation > 0, stride > 0 else {
                throw fail("kernel \(kernel), dilation \(dilation) and stride \(stride) must be positive")
            }
        case .dense(let outputs, _, _, _):
            guard outputs > 0 else { throw fail("outputs must be positive, got \(outputs)") }
        case .gru(let hidden, _):
            guard hidden > 0 else { throw fail("hidden must be positive, got \(hidden)") }
        }
        guard spec.dropout >= 0, spec.dropout < 1 else { throw fail("dropout \(spec.dropout) must be in [0, 1)") }
        guard isLast else { return }
        guard spec.activation == .sigmoid || spec.activation == .softmax else {
            throw fail("the last layer must end in sigmoid (one score per keyword) or softmax (background + keywords)")
        }
        guard spec.dropout == 0 else { throw fail("the last layer cannot have dropout") }
    }

    private static func makeBlock(
        _ spec: LayerSpec, index: Int, inputs: Int, isLast: Bool, seed: UInt64, random: inout SeededRandom
    ) -> Block {
        let followedByReLU = spec.activation == .relu
        let weights: any Operation
        switch spec {
        case .convolution(let outputs, let kernel, let dilation, let stride, let batchNorm, _, _):
            let fanIn = kernel * inputs
            weights = ConvolutionOperation(
                inputs: inputs, outputs: outputs, kernel: kernel, dilation: dilation, stride: stride,
                weights: Initialiser.weights(outputs * fanIn, fanIn: fanIn, fanOut: kernel * outputs, he: followedByReLU, &random),
                bias: batchNorm ? nil : [Float](repeating: 0, count: outputs))
        case .depthwiseConvolution(let kernel, let dilation, let stride, let batchNorm, _, _):
            weights = DepthwiseOperation(
                channels: inputs, kernel: kernel, dilation: dilation, stride: stride,
                weights: Initialiser.weights(kernel * inputs, fanIn: kernel, fanOut: kernel, he: followedByReLU, &random),
                bias: batchNorm ? nil : [Float](repeating: 0, count: inputs))
        case .dense(let outputs, let batchNorm, _, _):
            weights = ConvolutionOperation(
                inputs: inputs, outputs: outputs, kernel: 1, dilation: 1, stride: 1,
                weights: Initialiser.weights(outputs * inputs, fanIn: inputs, fanOut: outputs, he: followedByReLU, &random),
                bias: batchNorm ? nil : [Float](repeating: 0, count: outputs))
        case .gru(let hidden, _):
            weights = GRUOperation(
                inputs: inputs, hidden: hidden,
                inputWeights: Initialiser.weights(3 * hidden * inputs, fanIn: inputs, fanOut: hidden, he: false, &random),
                recurrentWeights: Initialiser.weights(3 * hidden * hidden, fanIn: hidden, fanOut: hidden, he: false, &random))
        }
        let channels = weights.outputChannels
        var dropoutSeed = SeededRandom.derived(seed: seed, stream: UInt64(index))
        let activation = isLast ? nil : spec.activation.flatMap { $0 == .linear ? nil : ActivationOperation($0, channels: channels) }
        return Block(
            spec: spec, weights: weights,
            batchNorm: spec.batchNorm ? BatchNormOperation(channels: channels) : nil,
            activation: activation,
            dropout: spec.dropout > 0
                ? DropoutOperation(rate: spec.dropout, channels: channels, seed: dropoutSeed.next())
                : nil)
    }
}

extension Targets {
    var kindName: String {
        switch self {
        case .binary: "binary"
        case .classes: "class"
        }
    }
}

/// Initial weights: He (for ReLU layers) or Glorot, uniform, from the network's seeded generator.
enum Initialiser {
    static func weights(_ count: Int, fanIn: Int, fanOut: Int, he: Bool, _ random: inout SeededRandom) -> [Float] {
        let limit = he ? (6 / Float(fanIn)).squareRoot() : (6 / Float(fanIn + fanOut)).squareRoot()
        return (0..<count).map { _ in random.uniform(limit: limit) }
    }
}
