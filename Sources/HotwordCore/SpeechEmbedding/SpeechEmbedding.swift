import Foundation

/// A pretrained speech front end: a convolutional network that turns the last 76 log-mel frames
/// (0.8 s) into 96 numbers every 80 ms, learnt once on a great deal of real speech and frozen.
/// A keyword model on top of it (a "head") learns only which sequences of embeddings are its word,
/// so it can be trained from synthetic voices alone and still hear people: openWakeWord's design,
/// with Google's speech_embedding network (docs/speech-embedding.md).
///
/// The input is the log-mel spectrogram `melFrontend` describes, mapped to the network's units:
/// v = log10(E·s²) + offset with s = `int16Scale` (the network was trained on 16-bit sample
/// values, `FeatureExtractor` works on samples in [−1, 1]), then in each group of `hopFrames`
/// frames v ← max(v, max(group) − `range`), openWakeWord's 80 dB range per chunk.
public struct SpeechEmbedding: Sendable, Hashable {
    /// Mel frames per embedding (the network's input height).
    public var windowFrames: Int
    /// Mel frames between embeddings.
    public var hopFrames: Int
    public var melBands: Int
    /// Values per embedding.
    public var outputs: Int
    public var input: InputMapping
    public var layers: [Layer]
    /// Where the weights came from (name, origin, license, source file and its SHA-256).
    public var provenance: [String: String]

    public struct InputMapping: Sendable, Hashable, Codable {
        public var int16Scale: Float
        public var offset: Float
        public var range: Float
    }

    public enum Layer: Sendable, Hashable {
        case conv2D(Conv2DLayer)
        /// Maximum over non-overlapping `time × bands` blocks (a remainder is dropped).
        case maxPool(time: Int, bands: Int)
    }

    /// 2-D convolution over (time, mel band) of a `[time][band][channel]` input: valid in time (the
    /// output is `kernelTime − 1` frames shorter), 'same' across bands (zero-padded, as wide as the
    /// input). W is `[outputs][kernelTime][kernelBands][inputs]`.
    public struct Conv2DLayer: Sendable, Hashable {
        public var inputs: Int
        public var outputs: Int
        public var kernelTime: Int
        public var kernelBands: Int
        /// Leaky ReLU with `slope` below zero, then clamped below at `floor`; nil: linear.
        public var leakyReLU: LeakyReLU?
        public var weights: [Float]
        public var bias: [Float]

        public struct LeakyReLU: Sendable, Hashable, Codable {
            public var slope: Float
            public var floor: Float
        }

        public var multiplyAddsPerOutput: Int { kernelTime * kernelBands * inputs }
    }

    /// The log-mel features the network was trained on: a periodic Hann window of 25 ms every
    /// 10 ms in a 512-point FFT, 32 Slaney mel bands from 60 to 3800 Hz, no pre-emphasis. The floor
    /// is openWakeWord's 1e-10 on 16-bit power, in the units of samples in [−1, 1].
    public static let melFrontend = FrontendConfig(
        frameLength: 400, frameShift: 160, fftSize: 512, removeDCOffset: false, preEmphasis: 0,
        window: .hannPeriodic, melBands: 32, lowFrequency: 60, highFrequency: 3_800, melScale: .slaney,
        logFloor: 1e-10 / (32_768 * 32_768))

    /// (time, bands, channels) after each layer, from a `windowFrames × melBands × 1` input.
    public var shapes: [(time: Int, bands: Int, channels: Int)] {
        var shape = (time: windowFrames, bands: melBands, channels: 1)
        return layers.map { layer in
            switch layer {
            case .conv2D(let conv): shape = (shape.time - conv.kernelTime + 1, shape.bands, conv.outputs)
            case .maxPool(let time, let bands): shape = (shape.time / time, shape.bands / bands, shape.channels)
            }
            return shape
        }
    }

    /// Multiply-adds per embedding of a window computed whole.
    public var multiplyAdds: Int {
        var shape = (time: windowFrames, bands: melBands)
        var total = 0
        for layer in layers {
            switch layer {
            case .conv2D(let conv):
                shape.time -= conv.kernelTime - 1
                total += shape.time * shape.bands * conv.outputs * conv.multiplyAddsPerOutput
            case .maxPool(let time, let bands):
                shape = (shape.time / time, shape.bands / bands)
            }
        }
        return total
    }

    /// Rows of each layer's output that the next window, `hopFrames` on, adds (dropping as many
    /// from the front), the others being this window's: every layer is valid in time, so only a
    /// pool whose stride does not divide the hop breaks that (nil: each window computed whole).
    public var newRowsPerHop: [Int]? {
        var timeStride = 1, rows: [Int] = []
        for (layer, shape) in zip(layers, shapes) {
            if case .maxPool(let time, _) = layer { timeStride *= time }
            guard hopFrames % timeStride == 0 else { return nil }
            rows.append(min(hopFrames / timeStride, shape.time))
        }
        return rows
    }

    /// Multiply-adds per embedding of a stream, where each window reuses the last one's rows.
    public var multiplyAddsPerHop: Int {
        guard let newRows = newRowsPerHop else { return multiplyAdds }
        var total = 0
        for (index, layer) in layers.enumerated() {
            if case .conv2D(let conv) = layer {
                total += newRows[index] * shapes[index].bands * conv.outputs * conv.multiplyAddsPerOutput
            }
        }
        return total
    }

    public func validate() throws(ModelError) {
        func fail(_ index: Int, _ reason: String) -> ModelError { .invalidLayer(index: index, kind: "speech embedding", reason: reason) }
        guard windowFrames > 0, hopFrames > 0, melBands > 0, outputs > 0 else {
            throw .invalidModel("speech embedding: windowFrames, hopFrames, melBands and outputs must be positive")
        }
        guard melBands == Self.melFrontend.melBands else {
            throw .invalidModel("speech embedding: \(melBands) mel bands, expected \(Self.melFrontend.melBands)")
        }
        guard input.int16Scale.isFinite, input.int16Scale > 0, input.offset.isFinite, input.range.isFinite, input.range > 0 else {
            throw .invalidModel("speech embedding: input mapping \(input) must be finite, with a positive scale and range")
        }
        var shape = (time: windowFrames, bands: melBands, channels: 1)
        for (index, layer) in layers.enumerated() {
            switch layer {
            case .conv2D(let conv):
                guard conv.inputs == shape.channels else { throw fail(index, "\(conv.inputs) inputs after \(shape.channels) channels") }
                guard conv.outputs > 0, conv.kernelTime > 0, conv.kernelBands > 0, conv.kernelBands % 2 == 1 else {
                    throw fail(index, "outputs and kernel sizes must be positive, the band kernel odd")
                }
                guard conv.kernelTime <= shape.time else { throw fail(index, "a kernel of \(conv.kernelTime) frames on \(shape.time)") }
                guard conv.weights.count == conv.outputs * conv.multiplyAddsPerOutput else {
                    throw fail(index, "\(conv.weights.count) weights, expected \(conv.outputs * conv.multiplyAddsPerOutput)")
                }
                guard conv.bias.count == conv.outputs else { throw fail(index, "\(conv.bias.count) biases, expected \(conv.outputs)") }
                guard (conv.weights + conv.bias).allSatisfy(\.isFinite) else { throw fail(index, "a weight is not finite") }
                if let act = conv.leakyReLU, !(act.slope.isFinite && act.floor.isFinite) {
                    throw fail(index, "leaky ReLU \(act) is not finite")
                }
                shape = (shape.time - conv.kernelTime + 1, shape.bands, conv.outputs)
            case .maxPool(let time, let bands):
                guard time > 0, bands > 0, time <= shape.time, bands <= shape.bands else {
                    throw fail(index, "a \(time)×\(bands) pool on \(shape.time)×\(shape.bands)")
                }
                shape = (shape.time / time, shape.bands / bands, shape.channels)
            }
        }
        guard shape.time == 1, shape.bands == 1, shape.channels == outputs else {
            throw .invalidModel("speech embedding: the layers end in \(shape.time)×\(shape.bands)×\(shape.channels), expected 1×1×\(outputs)")
        }
    }
}
