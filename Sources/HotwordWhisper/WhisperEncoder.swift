/// The sizes of a Whisper model, read from its variables' shapes.
struct WhisperDimensions {
    let width: Int
    let attention: AttentionShape
    let bands: Int
    let audioPositions: Int
    let textPositions: Int
    let vocabulary: Int
    let encoderLayers: Int
    let decoderLayers: Int

    init(_ file: CTranslate2ModelFile) throws(WhisperModelError) {
        let embedding = try file.shape("decoder/embeddings/weight")
        guard embedding.count == 2, embedding[0] > 0, embedding[1] > 0 else {
            throw .wrongShape(path: file.path, variable: "decoder/embeddings/weight", found: embedding, expected: [51_864, 384])
        }
        (vocabulary, width) = (embedding[0], embedding[1])
        let heads = try file.integer("encoder/num_heads")
        guard heads > 0, width % heads == 0, try file.integer("decoder/num_heads") == heads else {
            throw .invalid(path: file.path, variable: "encoder/num_heads and decoder/num_heads", found: "\(heads)",
                           expected: "the same number in both, dividing the width \(width)")
        }
        attention = AttentionShape(heads: heads, headWidth: width / heads)
        let conv1 = try file.shape("encoder/conv1/weight")
        guard conv1.count == 3, conv1[0] == width, conv1[1] > 0, conv1[2] == 3 else {
            throw .wrongShape(path: file.path, variable: "encoder/conv1/weight", found: conv1, expected: [width, 80, 3])
        }
        bands = conv1[1]
        audioPositions = try Self.positions(file, "encoder/position_encodings/encodings", width: width)
        textPositions = try Self.positions(file, "decoder/position_encodings/encodings", width: width)
        encoderLayers = Self.layerCount(file, "encoder")
        decoderLayers = Self.layerCount(file, "decoder")
        guard encoderLayers > 0, decoderLayers > 0 else { throw .missingVariable(path: file.path, variable: "encoder/layer_0 or decoder/layer_0") }
        for (scalar, expected) in [("encoder/activation", 3), ("decoder/activation", 3), ("encoder/pre_norm", 1), ("decoder/pre_norm", 1)]
        where file.contains(scalar) {
            let value = try file.integer(scalar)
            guard value == expected else {
                throw .invalid(path: file.path, variable: scalar, found: "\(value)",
                               expected: "\(expected) (Whisper: the exact GELU, layer norm before each block)")
            }
        }
    }

    private static func positions(_ file: CTranslate2ModelFile, _ name: String, width: Int) throws(WhisperModelError) -> Int {
        let shape = try file.shape(name)
        guard shape.count == 2, shape[0] > 0, shape[1] == width else {
            throw .wrongShape(path: file.path, variable: name, found: shape, expected: [shape.first ?? 0, width])
        }
        return shape[0]
    }

    private static func layerCount(_ file: CTranslate2ModelFile, _ stack: String) -> Int {
        var count = 0
        while file.contains("\(stack)/layer_\(count)/ffn/linear_0/weight") { count += 1 }
        return count
    }
}

/// A pre-norm transformer's feed-forward block: x += W₂·GELU(W₁·LN(x)).
struct FeedForward {
    let norm: LayerNorm
    let expand: Linear
    let contract: Linear

    init(_ file: CTranslate2ModelFile, _ scope: String, width: Int) throws(WhisperModelError) {
        norm = try LayerNorm(file, "\(scope)/layer_norm", width: width)
        let hidden = try file.shape("\(scope)/linear_0/weight").first ?? 0
        expand = try Linear(file, "\(scope)/linear_0", inputs: width, outputs: hidden)
        contract = try Linear(file, "\(scope)/linear_1", inputs: hidden, outputs: width)
    }

    /// `normed` holds rows × width, `hidden` rows × the hidden width.
    func add(to x: UnsafeMutablePointer<Float>, rows: Int, normed: UnsafeMutablePointer<Float>, hidden: UnsafeMutablePointer<Float>) {
        norm.apply(x, rows: rows, into: normed)
        expand.apply(normed, rows: rows, into: hidden)
        gelu(hidden, count: rows * expand.outputs)
        contract.add(hidden, rows: rows, to: x)
    }
}

/// A pre-norm self-attention block's weights, x += Wₒ·attention(LN(x)): the encoder's and the
/// decoder's alike (CTranslate2's `self_attention` scope).
struct SelfAttentionWeights {
    let norm: LayerNorm
    /// Q, K and V in one product.
    let queryKeyValue: Linear
    let output: Linear

    init(_ file: CTranslate2ModelFile, _ scope: String, width: Int) throws(WhisperModelError) {
        norm = try LayerNorm(file, "\(scope)/layer_norm", width: width)
        queryKeyValue = try Linear(file, "\(scope)/linear_0", inputs: width, outputs: 3 * width)
        output = try Linear(file, "\(scope)/linear_1", inputs: width, outputs: width)
    }
}

/// Whisper's audio encoder: two convolutions (the second halving the frame rate), learnt
/// positions, pre-norm self-attention blocks and a final layer norm.
struct WhisperEncoder {
    struct Layer {
        let selfAttention: SelfAttentionWeights
        let feedForward: FeedForward
    }

    let dimensions: WhisperDimensions
    /// The convolutions, their weights reordered to [output, tap, input] (see `Linear.convolve`).
    let conv1: Linear
    let conv2: Linear
    let positions: [Float]
    let layers: [Layer]
    let finalNorm: LayerNorm

    init(_ file: CTranslate2ModelFile, _ dimensions: WhisperDimensions) throws(WhisperModelError) {
        self.dimensions = dimensions
        let width = dimensions.width
        conv1 = try Self.convolution(file, "encoder/conv1", inputs: dimensions.bands, outputs: width)
        conv2 = try Self.convolution(file, "encoder/conv2", inputs: width, outputs: width)
        positions = try file.floats("encoder/position_encodings/encodings", shape: [dimensions.audioPositions, width])
        layers = try (0..<dimensions.encoderLayers).map { index throws(WhisperModelError) in
            let scope = "encoder/layer_\(index)"
            return Layer(selfAttention: try SelfAttentionWeights(file, "\(scope)/self_attention", width: width),
                         feedForward: try FeedForward(file, "\(scope)/ffn", width: width))
        }
        finalNorm = try LayerNorm(file, "encoder/layer_norm", width: width)
    }

    private static func convolution(_ file: CTranslate2ModelFile, _ scope: String, inputs: Int, outputs: Int) throws(WhisperModelError) -> Linear {
        let weight = try file.floats("\(scope)/weight", shape: [outputs, inputs, 3])
        var reordered = [Float](repeating: 0, count: weight.count)
        for o in 0..<outputs {
            for i in 0..<inputs {
                for tap in 0..<3 { reordered[(o * 3 + tap) * inputs + i] = weight[(o * inputs + i) * 3 + tap] }
            }
        }
        return Linear(weight: reordered, bias: try file.floats("\(scope)/bias", shape: [outputs]), inputs: 3 * inputs, outputs: outputs)
    }

    /// The encoding of `frames` mel frames (`mel`: bands rows of `frames`, band-major; `frames`
    /// even, at most twice the positions): frames / 2 rows of `width`. The rows are shared out
    /// among `threads`; each layer's attention reads every row's keys and values, so the threads
    /// wait for each other once a layer.
    func encode(mel: [Float], frames: Int, threads: Int) -> [Float] {
        let (width, bands) = (dimensions.width, dimensions.bands)
        precondition(frames % 2 == 0 && frames / 2 <= dimensions.audioPositions && mel.count == bands * frames)
        let rows = frames / 2
        let hiddenWidth = layers.first?.feedForward.expand.outputs ?? 0
        // Time-major, with a zero frame before and after: the convolutions' padding.
        let input = Scratch(count: (frames + 2) * bands), convolved = Scratch(count: (frames + 2) * width)
        let x = Scratch(count: rows * width), normed = Scratch(count: rows * width), attended = Scratch(count: rows * width)
        let qkv = Scratch(count: rows * 3 * width), hidden = Scratch(count: rows * hiddenWidth), scores = Scratch(count: rows * rows)
        defer { [input, convolved, x, normed, attended, qkv, hidden, scores].forEach { $0.free() } }
        for band in 0..<bands {
            for t in 0..<frames { input[(t + 1) * bands + band] = mel[band * frames + t] }
        }
        // Output frame t reads input frames t − 1, t, t + 1 (the padded rows t … t + 2).
        inSlices(of: frames, threads: threads) { first, count in
            let output = convolved.start + (first + 1) * width
            conv1.convolve(input.start + first * bands, taps: 3, stride: 1, rows: count, into: output)
            gelu(output, count: count * width)
        }
        // Stride 2: output t reads frames 2t − 1 … 2t + 1.
        inSlices(of: rows, threads: threads) { first, count in
            let output = x.start + first * width
            conv2.convolve(convolved.start + 2 * first * width, taps: 3, stride: 2, rows: count, into: output)
            gelu(output, count: count * width)
            positions.withUnsafeBufferPointer { positions in
                for i in (first * width)..<((first + count) * width) { x[i] += positions[i] }
            }
        }
        for layer in layers {
            inSlices(of: rows, threads: threads) { first, count in
                layer.selfAttention.norm.apply(x.start + first * width, rows: count, into: normed.start + first * width)
                layer.selfAttention.queryKeyValue.apply(normed.start + first * width, rows: count, into: qkv.start + first * 3 * width)
            }
            inSlices(of: rows, threads: threads) { first, count in
                let q = qkv.start + first * 3 * width
                dimensions.attention.attend(
                    query: q, ldq: 3 * width, key: qkv.start + width, ldk: 3 * width, value: qkv.start + 2 * width, ldv: 3 * width,
                    queries: count, keys: rows, scores: scores.start + first * rows,
                    into: attended.start + first * width, ldo: width)
                layer.selfAttention.output.add(attended.start + first * width, rows: count, to: x.start + first * width)
                layer.feedForward.add(to: x.start + first * width, rows: count, normed: normed.start + first * width,
                                      hidden: hidden.start + first * hiddenWidth)
            }
        }
        inSlices(of: rows, threads: threads) { first, count in
            finalNorm.apply(x.start + first * width, rows: count, into: normed.start + first * width)
        }
        return Array(UnsafeBufferPointer(start: normed.start, count: rows * width))
    }
}
