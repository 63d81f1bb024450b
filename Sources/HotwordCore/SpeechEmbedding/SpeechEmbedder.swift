import CBLAS

/// Runs a `SpeechEmbedding` network on one window of mel frames. Each convolution is one matrix
/// product: the input's patches laid out as rows (im2col), times the weights, through OpenBLAS —
/// 42 M multiply-adds per embedding, almost all of it in those products. Buffers are allocated
/// once; one instance per thread.
final class SpeechEmbedder {
    let network: SpeechEmbedding
    private let shapes: [(time: Int, bands: Int, channels: Int)]
    /// Activations in and out of a layer, `[time][band][channel]`.
    private let current: UnsafeMutablePointer<Float>
    private let next: UnsafeMutablePointer<Float>
    /// One row per output position: the kernel's patch of the input, `[kernelTime][kernelBands][inputs]`.
    private let patches: UnsafeMutablePointer<Float>

    /// OpenBLAS splits its products across threads by default; a detector runs on the audio thread alone.
    private static let singleThreaded: Void = openblas_set_num_threads(1)

    init(network: SpeechEmbedding) {
        _ = Self.singleThreaded
        self.network = network
        shapes = network.shapes
        let input = (time: network.windowFrames, bands: network.melBands, channels: 1)
        let largest = ([input] + shapes).map { $0.time * $0.bands * $0.channels }.max()!
        var largestPatches = 1
        for (layer, output) in zip(network.layers, shapes) {
            if case .conv2D(let conv) = layer {
                largestPatches = max(largestPatches, output.time * output.bands * conv.multiplyAddsPerOutput)
            }
        }
        current = .allocate(capacity: largest)
        next = .allocate(capacity: largest)
        patches = .allocate(capacity: largestPatches)
    }

    deinit {
        current.deallocate()
        next.deallocate()
        patches.deallocate()
    }

    /// `input`: `windowFrames × melBands` values in the network's units; writes `outputs` values.
    func embed(_ input: UnsafePointer<Float>, into output: UnsafeMutablePointer<Float>) {
        var shape = (time: network.windowFrames, bands: network.melBands, channels: 1)
        current.update(from: input, count: shape.time * shape.bands)
        var (source, destination) = (current, next)
        for (layer, outputShape) in zip(network.layers, shapes) {
            switch layer {
            case .conv2D(let conv): convolve(conv, source, shape, into: destination, outputShape)
            case .maxPool(let time, let bands): pool(time: time, bands: bands, source, shape, into: destination, outputShape)
            }
            shape = outputShape
            swap(&source, &destination)
        }
        output.update(from: source, count: network.outputs)
    }

    private func convolve(
        _ conv: SpeechEmbedding.Conv2DLayer, _ x: UnsafePointer<Float>, _ inShape: (time: Int, bands: Int, channels: Int),
        into y: UnsafeMutablePointer<Float>, _ outShape: (time: Int, bands: Int, channels: Int)
    ) {
        let (bands, channels) = (inShape.bands, inShape.channels)
        let halfKernel = conv.kernelBands / 2
        let rowLength = conv.multiplyAddsPerOutput
        let rows = outShape.time * outShape.bands
        // im2col: row (t, b) holds x[t + dt][b + db − halfKernel][·] for every tap, zeros beyond the bands.
        for t in 0..<outShape.time {
            for b in 0..<bands {
                var row = patches + (t * bands + b) * rowLength
                for dt in 0..<conv.kernelTime {
                    for db in 0..<conv.kernelBands {
                        let band = b + db - halfKernel
                        if band >= 0, band < bands {
                            row.update(from: x + ((t + dt) * bands + band) * channels, count: channels)
                        } else {
                            row.update(repeating: 0, count: channels)
                        }
                        row += channels
                    }
                }
            }
        }
        conv.weights.withUnsafeBufferPointer { w in
            // Y (rows × outputs) = patches (rows × rowLength) · Wᵀ, W being outputs × rowLength.
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, Int32(rows), Int32(conv.outputs), Int32(rowLength),
                        1, patches, Int32(rowLength), w.baseAddress, Int32(rowLength), 0, y, Int32(conv.outputs))
        }
        conv.bias.withUnsafeBufferPointer { bias in
            for r in 0..<rows {
                let values = y + r * conv.outputs
                for o in 0..<conv.outputs { values[o] += bias[o] }
            }
        }
        if let act = conv.leakyReLU {
            for i in 0..<(rows * conv.outputs) {
                let v = y[i]
                y[i] = max(v < 0 ? act.slope * v : v, act.floor)
            }
        }
    }

    private func pool(
        time: Int, bands: Int, _ x: UnsafePointer<Float>, _ inShape: (time: Int, bands: Int, channels: Int),
        into y: UnsafeMutablePointer<Float>, _ outShape: (time: Int, bands: Int, channels: Int)
    ) {
        let channels = inShape.channels
        for t in 0..<outShape.time {
            for b in 0..<outShape.bands {
                let out = y + (t * outShape.bands + b) * channels
                out.update(repeating: -.infinity, count: channels)
                for dt in 0..<time {
                    for db in 0..<bands {
                        let input = x + ((t * time + dt) * inShape.bands + b * bands + db) * channels
                        for c in 0..<channels { out[c] = max(out[c], input[c]) }
                    }
                }
            }
        }
    }
}
