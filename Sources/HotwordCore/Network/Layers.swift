import Foundation

/// Element-wise (or, for softmax, vector-wise) nonlinearity applied to a layer's output.
public enum Activation: String, Sendable, Hashable, Codable, CaseIterable {
    case linear, relu, sigmoid, tanh, softmax

    /// Applies the activation in place to `count` values (softmax over all of them).
    public func apply(_ values: UnsafeMutablePointer<Float>, count: Int) {
        switch self {
        case .linear:
            return
        case .relu:
            for i in 0..<count { values[i] = max(values[i], 0) }
        case .sigmoid:
            for i in 0..<count { values[i] = Activation.sigmoid(values[i]) }
        case .tanh:
            for i in 0..<count { values[i] = Foundation.tanh(values[i]) }
        case .softmax:
            var largest = -Float.infinity
            for i in 0..<count { largest = max(largest, values[i]) }
            var total: Float = 0
            for i in 0..<count {
                values[i] = Foundation.exp(values[i] - largest)
                total += values[i]
            }
            for i in 0..<count { values[i] /= total }
        }
    }

    @inline(__always)
    static func sigmoid(_ x: Float) -> Float { LogOdds.sigmoid(x) }
}

/// y = act(W·x + b) on every frame. W is row-major `[outputs][inputs]`.
public struct DenseLayer: Sendable, Hashable {
    public var inputs: Int
    public var outputs: Int
    public var activation: Activation
    public var weights: [Float]
    public var bias: [Float]

    public init(inputs: Int, outputs: Int, activation: Activation, weights: [Float], bias: [Float]) {
        self.inputs = inputs
        self.outputs = outputs
        self.activation = activation
        self.weights = weights
        self.bias = bias
    }
}

/// Causal 1-D convolution over time (frames), optionally dilated, strided, grouped or depthwise.
///
/// Output at input frame t: y = act(b + Σ_j W_j · x[t − (K−1−j)·dilation]), emitted on every
/// `stride`-th input frame. A full convolution stores W as `[outputs][kernelSize][inputs / groups]`:
/// with `groups` G, the channels split into G equal groups and output group g sees only input
/// group g (G = 1: every output sees every input). Two networks side by side — an ensemble — are
/// one network with G = 2. A depthwise one (one filter per channel, `outputs == inputs`) stores W
/// as `[kernelSize][channels]`, so each tap is a vector product across channels.
public struct Conv1DLayer: Sendable, Hashable {
    public var inputs: Int
    public var outputs: Int
    public var kernelSize: Int
    public var dilation: Int
    public var stride: Int
    public var depthwise: Bool
    /// Channel groups of a full convolution (1 for a depthwise one).
    public var groups: Int
    public var activation: Activation
    public var weights: [Float]
    public var bias: [Float]

    public init(
        inputs: Int, outputs: Int, kernelSize: Int, dilation: Int = 1, stride: Int = 1,
        depthwise: Bool = false, groups: Int = 1, activation: Activation, weights: [Float], bias: [Float]
    ) {
        self.inputs = inputs
        self.outputs = outputs
        self.kernelSize = kernelSize
        self.dilation = dilation
        self.stride = stride
        self.depthwise = depthwise
        self.groups = groups
        self.activation = activation
        self.weights = weights
        self.bias = bias
    }

    /// Input frames one output depends on.
    public var receptiveField: Int { (kernelSize - 1) * dilation + 1 }
    /// Input channels each output sees.
    public var inputsPerGroup: Int { inputs / groups }
    var expectedWeightCount: Int { depthwise ? kernelSize * inputs : outputs * kernelSize * inputsPerGroup }
    /// Past input values the streaming runner keeps: the receptive field twice over.
    var historyCount: Int { 2 * receptiveField * inputs }
}

/// Gated recurrent unit (PyTorch's gate order and equations):
///   r = σ(W_r x + b_r + U_r h + c_r),  z = σ(W_z x + b_z + U_z h + c_z),
///   n = tanh(W_n x + b_n + r ⊙ (U_n h + c_n)),  h' = (1 − z) ⊙ n + z ⊙ h.
/// W is `[3·hidden][inputs]` and U `[3·hidden][hidden]`, gates stacked r, z, n.
public struct GRULayer: Sendable, Hashable {
    public var inputs: Int
    public var hidden: Int
    public var inputWeights: [Float]
    public var recurrentWeights: [Float]
    public var inputBias: [Float]
    public var recurrentBias: [Float]

    public init(
        inputs: Int, hidden: Int, inputWeights: [Float], recurrentWeights: [Float],
        inputBias: [Float], recurrentBias: [Float]
    ) {
        self.inputs = inputs
        self.hidden = hidden
        self.inputWeights = inputWeights
        self.recurrentWeights = recurrentWeights
        self.inputBias = inputBias
        self.recurrentBias = recurrentBias
    }
}

/// One layer of a keyword network. Batch normalisation is folded into the preceding
/// layer's weights at export, so it never appears here.
public enum Layer: Sendable, Hashable {
    case dense(DenseLayer)
    case conv1D(Conv1DLayer)
    case gru(GRULayer)

    public var inputs: Int {
        switch self {
        case .dense(let l): l.inputs
        case .conv1D(let l): l.inputs
        case .gru(let l): l.inputs
        }
    }

    public var outputs: Int {
        switch self {
        case .dense(let l): l.outputs
        case .conv1D(let l): l.outputs
        case .gru(let l): l.hidden
        }
    }

    /// Input frames consumed per output frame.
    public var stride: Int {
        if case .conv1D(let l) = self { return l.stride }
        return 1
    }

    public var parameterCount: Int {
        switch self {
        case .dense(let l): l.weights.count + l.bias.count
        case .conv1D(let l): l.weights.count + l.bias.count
        case .gru(let l): l.inputWeights.count + l.recurrentWeights.count + l.inputBias.count + l.recurrentBias.count
        }
    }

    /// Multiply-adds for one output frame.
    public var multiplyAddsPerOutput: Int {
        switch self {
        case .dense(let l): l.weights.count
        case .conv1D(let l): l.weights.count
        case .gru(let l): l.inputWeights.count + l.recurrentWeights.count
        }
    }

    /// The nonlinearity on the layer's output (a GRU's output is its hidden state).
    public var activation: Activation? {
        switch self {
        case .dense(let l): l.activation
        case .conv1D(let l): l.activation
        case .gru: nil
        }
    }

    public var kindName: String {
        switch self {
        case .dense: "dense"
        case .conv1D(let l): l.depthwise ? "depthwise conv1d" : l.groups > 1 ? "grouped conv1d" : "conv1d"
        case .gru: "gru"
        }
    }
}
