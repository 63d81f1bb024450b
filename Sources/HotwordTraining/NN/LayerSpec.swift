import HotwordCore

/// One block of a trainable keyword network; each block becomes exactly one `HotwordCore.Layer`
/// at export. Inside a block the order is fixed: weights → batch norm → activation → dropout.
///
/// A block with batch norm has no bias of its own (batch norm's shift takes its place); at
/// export the normalisation is folded into the weights and bias. Dropout only acts in training.
public enum LayerSpec: Sendable, Hashable {
    /// Causal convolution over time: each output reads `kernel` frames `dilation` apart and one
    /// output is made every `stride` input frames. Weights `[outputs][kernel][inputs]`.
    case convolution(outputs: Int, kernel: Int, dilation: Int = 1, stride: Int = 1,
                     batchNorm: Bool = false, activation: Activation, dropout: Float = 0)
    /// One filter per channel (outputs = inputs). Weights `[kernel][channels]`.
    case depthwiseConvolution(kernel: Int, dilation: Int = 1, stride: Int = 1,
                              batchNorm: Bool = false, activation: Activation, dropout: Float = 0)
    /// The same affine map on every frame. Weights `[outputs][inputs]`.
    case dense(outputs: Int, batchNorm: Bool = false, activation: Activation, dropout: Float = 0)
    /// Gated recurrent unit (PyTorch gate order r, z, n), its state zero at the first frame it sees.
    case gru(hidden: Int, dropout: Float = 0)

    /// The network the project ships by default: a strided convolution, then depthwise-separable
    /// blocks with growing dilation, then a sigmoid (one keyword) or softmax (several keywords
    /// plus background) over the last frame.
    public static func dilatedDepthwiseStack(
        channels: Int = 48, firstKernel: Int = 3, firstStride: Int = 3, kernel: Int = 5,
        dilations: [Int] = [1, 2, 4, 8], keywords: Int = 1, dropout: Float = 0
    ) -> [LayerSpec] {
        var layers: [LayerSpec] = [
            .convolution(outputs: channels, kernel: firstKernel, stride: firstStride, batchNorm: true, activation: .relu)
        ]
        for dilation in dilations {
            layers.append(.depthwiseConvolution(kernel: kernel, dilation: dilation, batchNorm: true, activation: .linear))
            layers.append(.convolution(outputs: channels, kernel: 1, batchNorm: true, activation: .relu, dropout: dropout))
        }
        layers.append(keywords == 1
            ? .dense(outputs: 1, activation: .sigmoid)
            : .dense(outputs: keywords + 1, activation: .softmax))
        return layers
    }

    /// A small head on a speech embedding (`SpeechEmbedding`, one 96-value frame every 80 ms):
    /// a convolution over `window` embeddings (1.28 s for 16) — openWakeWord's flattened window
    /// — then a hidden layer and a sigmoid.
    public static func embeddingHead(channels: Int = 48, window: Int = 16, dropout: Float = 0) -> [LayerSpec] {
        [
            .convolution(outputs: channels, kernel: window, batchNorm: true, activation: .relu, dropout: dropout),
            .dense(outputs: channels, batchNorm: true, activation: .relu, dropout: dropout),
            .dense(outputs: 1, activation: .sigmoid),
        ]
    }

    /// The network `hotword train` builds for a frontend: a head on a speech embedding, else the
    /// dilated depthwise stack on spectral features.
    public static func network(for frontend: FrontendConfig, channels: Int, dropout: Float) -> [LayerSpec] {
        frontend.embedding == nil
            ? dilatedDepthwiseStack(channels: channels, dropout: dropout)
            : embeddingHead(channels: channels, dropout: dropout)
    }

    var batchNorm: Bool {
        switch self {
        case .convolution(_, _, _, _, let batchNorm, _, _), .depthwiseConvolution(_, _, _, let batchNorm, _, _),
             .dense(_, let batchNorm, _, _): batchNorm
        case .gru: false
        }
    }

    var activation: Activation? {
        switch self {
        case .convolution(_, _, _, _, _, let activation, _), .depthwiseConvolution(_, _, _, _, let activation, _),
             .dense(_, _, let activation, _): activation
        case .gru: nil
        }
    }

    var dropout: Float {
        switch self {
        case .convolution(_, _, _, _, _, _, let dropout), .depthwiseConvolution(_, _, _, _, _, let dropout),
             .dense(_, _, _, let dropout), .gru(_, let dropout): dropout
        }
    }

    var kindName: String {
        switch self {
        case .convolution: "convolution"
        case .depthwiseConvolution: "depthwise convolution"
        case .dense: "dense"
        case .gru: "gru"
        }
    }
}

/// What is wrong with a network description or with the data handed to a network.
public enum NetworkError: Error, Sendable, Hashable, CustomStringConvertible {
    case invalidLayer(index: Int, kind: String, reason: String)
    case invalidNetwork(String)
    /// Values, targets or weights that do not fit the stated batch shape.
    case shapeMismatch(what: String, expected: Int, actual: Int)
    case windowTooShort(frames: Int, minimum: Int)
    case invalidTargets(String)
    case backwardWithoutTrainingForward

    public var description: String {
        switch self {
        case .invalidLayer(let index, let kind, let reason):
            "layer \(index) (\(kind)): \(reason)"
        case .invalidNetwork(let reason):
            "invalid network: \(reason)"
        case .shapeMismatch(let what, let expected, let actual):
            "\(what): expected \(expected) values, got \(actual)"
        case .windowTooShort(let frames, let minimum):
            "windows of \(frames) frames are shorter than the network's receptive field (\(minimum) frames)"
        case .invalidTargets(let reason):
            "invalid targets: \(reason)"
        case .backwardWithoutTrainingForward:
            "backward needs a training-mode forward pass of the same batch first"
        }
    }
}
