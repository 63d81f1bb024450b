import CBLAS

/// Runs a `SpeechEmbedding` network on windows of mel frames. Each convolution is one matrix
/// product: the input's patches laid out as rows (im2col), times the weights, through OpenBLAS —
/// 42 M multiply-adds for a whole window. Windows come `hopFrames` apart, and every layer is
/// valid in time with pools whose strides divide the hop, so each layer's output for the next
/// window is its output for this one moved on by a few rows plus a few new ones: `embedNext`
/// computes only those (`multiplyAddsPerHop`: 5.6 M for Google's network). Buffers are allocated once;
/// one instance per thread.
final class SpeechEmbedder {
    let network: SpeechEmbedding
    private let shapes: [(time: Int, bands: Int, channels: Int)]
    /// Each layer's output for the last window, `[time][band][channel]`.
    private let activations: [UnsafeMutablePointer<Float>]
    /// Rows of each layer's output the next window adds (and drops from the front); nil where a
    /// pool's stride does not divide the hop, so that every window is computed whole.
    private let newRows: [Int]?
    /// One row per output position: the kernel's patch of the input, `[kernelTime][kernelBands][inputs]`.
    private let patches: UnsafeMutablePointer<Float>
    private var hasWindow = false

    init(network: SpeechEmbedding) {
        _ = Kernels.singleThreadedBLAS
        self.network = network
        shapes = network.shapes
        activations = shapes.map { .allocate(capacity: $0.time * $0.bands * $0.channels) }
        var largestPatches = 1
        for (layer, output) in zip(network.layers, shapes) {
            if case .conv2D(let conv) = layer {
                largestPatches = max(largestPatches, output.time * output.bands * conv.multiplyAddsPerOutput)
            }
        }
        patches = .allocate(capacity: largestPatches)
        newRows = network.newRowsPerHop
    }

    deinit {
        for buffer in activations { buffer.deallocate() }
        patches.deallocate()
    }

    /// The embedding of one window, `windowFrames × melBands` values in the network's units;
    /// writes `outputs` values.
    func embed(_ input: UnsafePointer<Float>, into output: UnsafeMutablePointer<Float>) {
        for index in network.layers.indices { compute(layer: index, rows: 0..<shapes[index].time, input: input) }
        hasWindow = true
        output.update(from: activations.last!, count: network.outputs)
    }

    /// The embedding of the window `hopFrames` on from the last one embedded (`input` holds it
    /// whole): each layer drops its oldest rows and computes only the new ones. The products run
    /// on fewer rows, so values may differ from `embed`'s in the last bits.
    func embedNext(_ input: UnsafePointer<Float>, into output: UnsafeMutablePointer<Float>) {
        guard hasWindow, let newRows else { return embed(input, into: output) }
        for index in network.layers.indices {
            let shape = shapes[index], kept = shape.time - newRows[index]
            let rowSize = shape.bands * shape.channels
            activations[index].update(from: activations[index] + newRows[index] * rowSize, count: kept * rowSize)
            compute(layer: index, rows: kept..<shape.time, input: input)
        }
        output.update(from: activations.last!, count: network.outputs)
    }

    /// Forgets the last window: the next one is computed whole.
    func reset() { hasWindow = false }

    /// Rows `rows` of layer `index`'s output, from the window (`input`) or the layer before.
    private func compute(layer index: Int, rows: Range<Int>, input: UnsafePointer<Float>) {
        let inShape = index == 0 ? (time: network.windowFrames, bands: network.melBands, channels: 1) : shapes[index - 1]
        let x = index == 0 ? input : UnsafePointer(activations[index - 1])
        switch network.layers[index] {
        case .conv2D(let conv): convolve(conv, x, inShape, into: activations[index], shapes[index], rows: rows)
        case .maxPool(let time, let bands): pool(time: time, bands: bands, x, inShape, into: activations[index], shapes[index], rows: rows)
        }
    }

    private func convolve(
        _ conv: SpeechEmbedding.Conv2DLayer, _ x: UnsafePointer<Float>, _ inShape: (time: Int, bands: Int, channels: Int),
        into output: UnsafeMutablePointer<Float>, _ outShape: (time: Int, bands: Int, channels: Int), rows times: Range<Int>
    ) {
        let (bands, channels) = (inShape.bands, inShape.channels)
        let halfKernel = conv.kernelBands / 2
        let rowLength = conv.multiplyAddsPerOutput
        let rows = times.count * outShape.bands
        let y = output + times.lowerBound * outShape.bands * conv.outputs
        // im2col: row (t, b) holds x[t + dt][b + db − halfKernel][·] for every tap, zeros beyond the bands.
        for t in times {
            for b in 0..<bands {
                var row = patches + ((t - times.lowerBound) * bands + b) * rowLength
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
        into y: UnsafeMutablePointer<Float>, _ outShape: (time: Int, bands: Int, channels: Int), rows times: Range<Int>
    ) {
        let channels = inShape.channels
        for t in times {
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
