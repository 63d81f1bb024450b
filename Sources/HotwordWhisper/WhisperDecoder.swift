/// Whisper's text decoder: token embeddings and learnt positions, pre-norm blocks of causal
/// self-attention, attention on the encoded audio and a feed-forward network, a final layer
/// norm, and logits against the token embeddings.
struct WhisperDecoder {
    struct Layer {
        let selfAttention: SelfAttentionWeights
        let crossNorm: LayerNorm
        let crossQuery: Linear
        /// The audio's keys and values in one product, computed once per utterance.
        let crossKeyValue: Linear
        let crossOutput: Linear
        let feedForward: FeedForward
    }

    let dimensions: WhisperDimensions
    let embedding: [Float]
    let positions: [Float]
    let layers: [Layer]
    let finalNorm: LayerNorm

    init(_ file: CTranslate2ModelFile, _ dimensions: WhisperDimensions) throws(WhisperModelError) {
        self.dimensions = dimensions
        let width = dimensions.width
        embedding = try file.floats("decoder/embeddings/weight", shape: [dimensions.vocabulary, width])
        positions = try file.floats("decoder/position_encodings/encodings", shape: [dimensions.textPositions, width])
        layers = try (0..<dimensions.decoderLayers).map { index throws(WhisperModelError) in
            let scope = "decoder/layer_\(index)"
            return Layer(selfAttention: try SelfAttentionWeights(file, "\(scope)/self_attention", width: width),
                         crossNorm: try LayerNorm(file, "\(scope)/attention/layer_norm", width: width),
                         crossQuery: try Linear(file, "\(scope)/attention/linear_0", inputs: width, outputs: width),
                         crossKeyValue: try Linear(file, "\(scope)/attention/linear_1", inputs: width, outputs: 2 * width),
                         crossOutput: try Linear(file, "\(scope)/attention/linear_2", inputs: width, outputs: width),
                         feedForward: try FeedForward(file, "\(scope)/ffn", width: width))
        }
        finalNorm = try LayerNorm(file, "decoder/layer_norm", width: width)
    }

    /// The decoding of one utterance: the audio's keys and values, the self-attention cache and
    /// every buffer a step needs, allocated once so that steps allocate nothing.
    final class Session {
        private let decoder: WhisperDecoder
        private let audioRows: Int
        /// Per layer, audioRows × (keys | values).
        private var audioKeyValues: [[Float]]
        /// Per layer, one row of (query | key | value) per position decoded so far: the keys and
        /// values are the cache, read in place.
        private var selfQueryKeyValues: [[Float]]
        private var x: [Float]
        private var normed: [Float]
        private var attended: [Float]
        private var query: [Float]
        private var hidden: [Float]
        private var scores: [Float]
        /// Logits of the tokens up to `scoredTokens`; the caller may mask them.
        var logits: [Float]
        let scoredTokens: Int
        /// The logits, a product of the whole embedding table at every step, are shared out among them.
        private let threads: Int
        private(set) var position = 0

        /// `audio`: the encoder's rows × width, whose keys and values are computed on `threads`
        /// threads. Only the first `scoredTokens` tokens get logits.
        init(_ decoder: WhisperDecoder, audio: [Float], scoredTokens: Int, threads: Int) {
            let width = decoder.dimensions.width
            let audioRows = audio.count / width
            self.decoder = decoder
            self.audioRows = audioRows
            self.scoredTokens = scoredTokens
            self.threads = threads
            audioKeyValues = decoder.layers.map { layer in
                let keyValues = Scratch(count: audioRows * 2 * width)
                defer { keyValues.free() }
                inSlices(of: audioRows, threads: threads) { first, count in
                    audio.withUnsafeBufferPointer { audio in
                        layer.crossKeyValue.apply(audio.baseAddress! + first * width, rows: count, into: keyValues.start + first * 2 * width)
                    }
                }
                return Array(UnsafeBufferPointer(start: keyValues.start, count: audioRows * 2 * width))
            }
            let positions = decoder.dimensions.textPositions
            selfQueryKeyValues = decoder.layers.map { _ in [Float](repeating: 0, count: positions * 3 * width) }
            x = [Float](repeating: 0, count: width)
            normed = x
            attended = x
            query = x
            hidden = [Float](repeating: 0, count: decoder.layers.first?.feedForward.expand.outputs ?? 0)
            scores = [Float](repeating: 0, count: max(positions, audioRows))
            logits = [Float](repeating: 0, count: scoredTokens)
        }

        var isFull: Bool { position == decoder.dimensions.textPositions }

        /// Feeds `token` at the next position and leaves the next token's logits in `logits`.
        func step(_ token: Int) {
            precondition(!isFull && (0..<decoder.dimensions.vocabulary).contains(token))
            let width = decoder.dimensions.width
            let attention = decoder.dimensions.attention
            for i in 0..<width { x[i] = decoder.embedding[token * width + i] + decoder.positions[position * width + i] }
            let position = position
            x.withUnsafeMutableBufferPointer { x in
                let x = x.baseAddress!
                normed.withUnsafeMutableBufferPointer { normed in
                    let normed = normed.baseAddress!
                    attended.withUnsafeMutableBufferPointer { attended in
                        let attended = attended.baseAddress!
                        scores.withUnsafeMutableBufferPointer { scores in
                            let scores = scores.baseAddress!
                            for (index, layer) in decoder.layers.enumerated() {
                                layer.selfAttention.norm.apply(x, rows: 1, into: normed)
                                selfQueryKeyValues[index].withUnsafeMutableBufferPointer { cache in
                                    let row = cache.baseAddress! + position * 3 * width
                                    layer.selfAttention.queryKeyValue.apply(normed, rows: 1, into: row)
                                    // Causal by construction: the cache holds positions 0…position only.
                                    attention.attend(query: row, ldq: 3 * width, key: cache.baseAddress! + width, ldk: 3 * width,
                                                     value: cache.baseAddress! + 2 * width, ldv: 3 * width,
                                                     queries: 1, keys: position + 1, scores: scores,
                                                     into: attended, ldo: width)
                                }
                                layer.selfAttention.output.add(attended, rows: 1, to: x)
                                layer.crossNorm.apply(x, rows: 1, into: normed)
                                query.withUnsafeMutableBufferPointer { query in
                                    layer.crossQuery.apply(normed, rows: 1, into: query.baseAddress!)
                                    audioKeyValues[index].withUnsafeBufferPointer { audio in
                                        attention.attend(query: query.baseAddress!, ldq: width, key: audio.baseAddress!, ldk: 2 * width,
                                                         value: audio.baseAddress! + width, ldv: 2 * width,
                                                         queries: 1, keys: audioRows, scores: scores,
                                                         into: attended, ldo: width)
                                    }
                                }
                                layer.crossOutput.add(attended, rows: 1, to: x)
                                hidden.withUnsafeMutableBufferPointer { hidden in
                                    layer.feedForward.add(to: x, rows: 1, normed: normed, hidden: hidden.baseAddress!)
                                }
                            }
                            decoder.finalNorm.apply(x, rows: 1, into: normed)
                            decoder.embedding.withUnsafeBufferPointer { embedding in
                                logits.withUnsafeMutableBufferPointer { logits in
                                    let product = VectorProduct(x: normed, weight: embedding.baseAddress!, y: logits.baseAddress!)
                                    inSlices(of: scoredTokens, threads: threads) { first, count in
                                        matrixProduct(product.x, lda: width, product.weight + first * width, ldb: width, transposeB: true,
                                                      rows: 1, columns: count, inner: width, accumulate: false,
                                                      into: product.y + first, ldc: count)
                                    }
                                }
                            }
                        }
                    }
                }
            }
            self.position += 1
        }
    }
}

/// y = W·x for one row x, handed to the threads that each compute a slice of y. @unchecked:
/// they only read x and W, and write slices of y that do not overlap.
private struct VectorProduct: @unchecked Sendable {
    let x: UnsafePointer<Float>
    let weight: UnsafePointer<Float>
    let y: UnsafeMutablePointer<Float>
}
