import Foundation

/// Runs a keyword network one feature frame at a time. Each layer keeps its own state (a
/// convolution the last frames it needs, a GRU its hidden vector), so a new 10 ms frame costs
/// only the work it adds. All buffers are allocated once; `push` allocates nothing.
///
/// One instance per audio stream, used from one thread at a time.
public final class StreamingNetwork {
    private let runners: [any LayerRunner]
    public let outputCount: Int

    /// `model` must be valid (`KeywordModel.validate()`); models from `ModelFile.decode` are.
    public init(model: KeywordModel) {
        runners = model.layers.map { layer -> any LayerRunner in
            switch layer {
            case .dense(let l): DenseRunner(l)
            case .conv1D(let l): ConvRunner(l)
            case .gru(let l): GRURunner(l)
            }
        }
        outputCount = model.layers.last?.outputs ?? 0
    }

    /// Feeds one feature frame; returns the network's output when the last layer emits one
    /// (every `totalStride` frames), valid until the next call.
    public func push(_ frame: UnsafePointer<Float>) -> UnsafeBufferPointer<Float>? {
        var input = frame
        for runner in runners {
            guard let output = runner.step(input) else { return nil }
            input = output
        }
        return UnsafeBufferPointer(start: input, count: outputCount)
    }

    /// Forgets all history, as if the stream started again.
    public func reset() {
        for runner in runners { runner.reset() }
    }
}

private protocol LayerRunner: AnyObject {
    /// Consumes one input frame; returns the output frame if this step emits one.
    func step(_ input: UnsafePointer<Float>) -> UnsafePointer<Float>?
    func reset()
}

/// A fixed-size Float buffer owned by a runner.
private struct Buffer {
    let pointer: UnsafeMutablePointer<Float>
    let count: Int

    init(_ values: [Float]) {
        pointer = .allocate(capacity: max(values.count, 1))
        count = values.count
        values.withUnsafeBufferPointer { pointer.update(from: $0.baseAddress!, count: values.count) }
    }

    init(zeros count: Int) { self.init([Float](repeating: 0, count: count)) }

    func zero() { pointer.update(repeating: 0, count: count) }
    func free() { pointer.deallocate() }
}

private final class DenseRunner: LayerRunner {
    let layer: DenseLayer
    let weights: Buffer, bias: Buffer, output: Buffer

    init(_ layer: DenseLayer) {
        self.layer = layer
        weights = Buffer(layer.weights)
        bias = Buffer(layer.bias)
        output = Buffer(zeros: layer.outputs)
    }

    deinit { [weights, bias, output].forEach { $0.free() } }

    func step(_ input: UnsafePointer<Float>) -> UnsafePointer<Float>? {
        output.pointer.update(from: bias.pointer, count: layer.outputs)
        Kernels.addMatrixVector(weights.pointer, rows: layer.outputs, columns: layer.inputs, input, into: output.pointer)
        layer.activation.apply(output.pointer, count: layer.outputs)
        return UnsafePointer(output.pointer)
    }

    func reset() {}
}

/// Keeps the last `receptiveField` input frames twice over (slots i and i + R), so the frames
/// of the current window are always contiguous, oldest first, without copying them around.
private final class ConvRunner: LayerRunner {
    let layer: Conv1DLayer
    let weights: Buffer, bias: Buffer, output: Buffer, history: Buffer
    let window: Int
    var nextSlot = 0
    var framesSinceOutput = 0

    init(_ layer: Conv1DLayer) {
        self.layer = layer
        window = layer.receptiveField
        weights = Buffer(layer.weights)
        bias = Buffer(layer.bias)
        output = Buffer(zeros: layer.outputs)
        history = Buffer(zeros: layer.historyCount)
    }

    deinit { [weights, bias, output, history].forEach { $0.free() } }

    func step(_ input: UnsafePointer<Float>) -> UnsafePointer<Float>? {
        let channels = layer.inputs
        let oldest: UnsafePointer<Float>
        if window == 1 {
            // A pointwise layer's window is the frame itself: nothing to keep.
            oldest = input
        } else {
            history.pointer.advanced(by: nextSlot * channels).update(from: input, count: channels)
            history.pointer.advanced(by: (nextSlot + window) * channels).update(from: input, count: channels)
            oldest = UnsafePointer(history.pointer.advanced(by: (nextSlot + 1) * channels))
            nextSlot = (nextSlot + 1) % window
        }
        framesSinceOutput += 1
        guard framesSinceOutput == layer.stride else { return nil }
        framesSinceOutput = 0

        let out = output.pointer
        out.update(from: bias.pointer, count: layer.outputs)
        let tapSpacing = layer.dilation * channels
        if layer.depthwise {
            for tap in 0..<layer.kernelSize {
                Kernels.addProduct(weights.pointer + tap * channels, oldest + tap * tapSpacing, into: out, count: channels)
            }
        } else if layer.dilation == 1 && layer.groups == 1 {
            // The window is exactly the kernel's taps, laid out like each filter's weights.
            Kernels.addMatrixVector(weights.pointer, rows: layer.outputs, columns: layer.kernelSize * channels, oldest, into: out)
        } else if layer.kernelSize == 1 {
            // Pointwise and grouped (networks side by side): each group's filters are one matrix
            // over its own channels. One dot product per filter cost three times the instructions.
            let outputsPerGroup = layer.outputs / layer.groups, groupInputs = layer.inputsPerGroup
            for group in 0..<layer.groups {
                Kernels.addMatrixVector(weights.pointer + group * outputsPerGroup * groupInputs, rows: outputsPerGroup,
                                        columns: groupInputs, oldest + group * groupInputs, into: out + group * outputsPerGroup)
            }
        } else {
            // Dilated or grouped: each tap of each filter is a dot product with its group's channels.
            let groupInputs = layer.inputsPerGroup
            let filterLength = layer.kernelSize * groupInputs
            let outputsPerGroup = layer.outputs / layer.groups
            for o in 0..<layer.outputs {
                let filter = weights.pointer + o * filterLength
                let firstInput = oldest + (o / outputsPerGroup) * groupInputs
                for tap in 0..<layer.kernelSize {
                    out[o] += Kernels.dot(filter + tap * groupInputs, firstInput + tap * tapSpacing, count: groupInputs)
                }
            }
        }
        layer.activation.apply(out, count: layer.outputs)
        return UnsafePointer(out)
    }

    func reset() {
        history.zero()
        nextSlot = 0
        framesSinceOutput = 0
    }
}

private final class GRURunner: LayerRunner {
    let layer: GRULayer
    let inputWeights: Buffer, recurrentWeights: Buffer, inputBias: Buffer, recurrentBias: Buffer
    let inputGates: Buffer, recurrentGates: Buffer, state: Buffer

    init(_ layer: GRULayer) {
        self.layer = layer
        inputWeights = Buffer(layer.inputWeights)
        recurrentWeights = Buffer(layer.recurrentWeights)
        inputBias = Buffer(layer.inputBias)
        recurrentBias = Buffer(layer.recurrentBias)
        inputGates = Buffer(zeros: 3 * layer.hidden)
        recurrentGates = Buffer(zeros: 3 * layer.hidden)
        state = Buffer(zeros: layer.hidden)
    }

    deinit {
        [inputWeights, recurrentWeights, inputBias, recurrentBias, inputGates, recurrentGates, state].forEach { $0.free() }
    }

    func step(_ input: UnsafePointer<Float>) -> UnsafePointer<Float>? {
        let hidden = layer.hidden
        let gx = inputGates.pointer, gh = recurrentGates.pointer, h = state.pointer
        gx.update(from: inputBias.pointer, count: 3 * hidden)
        Kernels.addMatrixVector(inputWeights.pointer, rows: 3 * hidden, columns: layer.inputs, input, into: gx)
        gh.update(from: recurrentBias.pointer, count: 3 * hidden)
        Kernels.addMatrixVector(recurrentWeights.pointer, rows: 3 * hidden, columns: hidden, h, into: gh)
        for i in 0..<hidden {
            let reset = Activation.sigmoid(gx[i] + gh[i])
            let update = Activation.sigmoid(gx[hidden + i] + gh[hidden + i])
            let candidate = Foundation.tanh(gx[2 * hidden + i] + reset * gh[2 * hidden + i])
            h[i] = (1 - update) * candidate + update * h[i]
        }
        return UnsafePointer(h)
    }

    func reset() { state.zero() }
}
