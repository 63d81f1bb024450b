import HotwordCore

extension Network {
    /// The network as `HotwordCore` layers for a `KeywordModel`, in evaluation mode: batch norm
    /// folded into the weights and bias before it (W' = m·W, b' = m·b + o with
    /// m = γ/√(running variance + ε), o = β − m·running mean), dropout gone.
    public func exportLayers() -> [Layer] {
        blocks.map { block in
            let (multiplier, offset) = block.batchNorm?.evaluationAffine()
                ?? ([Float](repeating: 1, count: block.weights.outputChannels), [Float](repeating: 0, count: block.weights.outputChannels))
            let activation = block.spec.activation ?? .linear
            switch block.weights {
            case let conv as ConvolutionOperation:
                var weights = conv.weights.valuesArray
                let rowLength = conv.kernel * conv.inputs
                for o in 0..<conv.outputs {
                    for i in 0..<rowLength { weights[o * rowLength + i] *= multiplier[o] }
                }
                let bias = (0..<conv.outputs).map { o in (conv.bias?.valuesArray[o] ?? 0) * multiplier[o] + offset[o] }
                if case .dense = block.spec {
                    return .dense(DenseLayer(inputs: conv.inputs, outputs: conv.outputs, activation: activation,
                                             weights: weights, bias: bias))
                }
                return .conv1D(Conv1DLayer(inputs: conv.inputs, outputs: conv.outputs, kernelSize: conv.kernel,
                                           dilation: conv.dilation, stride: conv.stride, activation: activation,
                                           weights: weights, bias: bias))
            case let conv as DepthwiseOperation:
                var weights = conv.weights.valuesArray
                for j in 0..<conv.kernel {
                    for c in 0..<conv.channels { weights[j * conv.channels + c] *= multiplier[c] }
                }
                let bias = (0..<conv.channels).map { c in (conv.bias?.valuesArray[c] ?? 0) * multiplier[c] + offset[c] }
                return .conv1D(Conv1DLayer(inputs: conv.channels, outputs: conv.channels, kernelSize: conv.kernel,
                                           dilation: conv.dilation, stride: conv.stride, depthwise: true,
                                           activation: activation, weights: weights, bias: bias))
            case let gru as GRUOperation:
                return .gru(GRULayer(inputs: gru.inputs, hidden: gru.hidden, inputWeights: gru.inputWeights.valuesArray,
                                     recurrentWeights: gru.recurrentWeights.valuesArray, inputBias: gru.inputBias.valuesArray,
                                     recurrentBias: gru.recurrentBias.valuesArray))
            default:
                preconditionFailure("every block starts with a convolution, depthwise convolution, dense or GRU operation")
            }
        }
    }
}

/// Everything a trained network has learned: its parameters and batch-norm running statistics,
/// in a fixed order. Keep one to return to the best epoch; it fits only the network it came from.
public struct NetworkState: Sendable, Hashable {
    public var parameters: [Float]
    public var runningStatistics: [Float]
}

extension Network {
    /// All parameters, flattened in layer order (weights, then biases or batch-norm scale and shift).
    public var parameterValues: [Float] { parameters.flatMap(\.valuesArray) }

    /// The accumulated gradients, in the order of `parameterValues`.
    public var parameterGradients: [Float] { parameters.flatMap { $0.gradient.array($0.count) } }

    public var state: NetworkState {
        NetworkState(parameters: parameterValues, runningStatistics: batchNorms.flatMap {
            $0.runningMean.array($0.channels) + $0.runningVariance.array($0.channels)
        })
    }

    /// Puts back a state taken from this network (or one built from the same layers).
    public func restore(_ state: NetworkState) throws(NetworkError) {
        try setParameterValues(state.parameters)
        let expected = batchNorms.reduce(0) { $0 + 2 * $1.channels }
        guard state.runningStatistics.count == expected else {
            throw .shapeMismatch(what: "batch-norm running statistics", expected: expected, actual: state.runningStatistics.count)
        }
        var offset = 0
        for norm in batchNorms {
            for buffer in [norm.runningMean, norm.runningVariance] {
                state.runningStatistics.withUnsafeBufferPointer {
                    buffer.pointer.update(from: $0.baseAddress! + offset, count: norm.channels)
                }
                offset += norm.channels
            }
        }
    }

    /// Replaces all parameters (in the order of `parameterValues`).
    public func setParameterValues(_ values: [Float]) throws(NetworkError) {
        guard values.count == parameterCount else {
            throw .shapeMismatch(what: "parameter values", expected: parameterCount, actual: values.count)
        }
        var offset = 0
        values.withUnsafeBufferPointer { source in
            for parameter in parameters {
                parameter.values.pointer.update(from: source.baseAddress! + offset, count: parameter.count)
                offset += parameter.count
            }
        }
    }

    /// Every buffer that `state` captures, with its length: what `WeightAverage` averages.
    var averagedBuffers: [(buffer: FloatBuffer, count: Int)] {
        parameters.map { ($0.values, $0.count) }
            + batchNorms.flatMap { [($0.runningMean, $0.channels), ($0.runningVariance, $0.channels)] }
    }

    private var batchNorms: [BatchNormOperation] { blocks.compactMap(\.batchNorm) }
}
