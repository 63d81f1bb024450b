import CBLAS

/// Runs a `SpeechEmbedding` network on windows of mel frames. Each convolution is one matrix
/// product through OpenBLAS: the input's patches laid out as rows (im2col), times the weights;
/// a kernel one band wide (3×1) is one product per tap straight on the input, which holds its
/// rows in order already — 42 M multiply-adds for a whole window. Windows come `hopFrames`
/// apart, and every layer is valid in time with pools whose strides divide the hop, so each
/// layer's output for the next window is its output for this one moved on by a few rows plus a
/// few new ones: `embedNext` computes only those (`multiplyAddsPerHop`: 5.6 M for Google's
/// network). Buffers are allocated once; one instance per thread.
final class SpeechEmbedder {
    let network: SpeechEmbedding
    private let shapes: [(time: Int, bands: Int, channels: Int)]
    /// Each layer's output rows, `[time][band][channel]`: the last window's, from `firstRows`, and
    /// room for `spareWindows` windows' more rows after them. A hop writes its new rows after the
    /// last window's; only once the room is used up are the rows kept moved back to the front —
    /// moving them every hop was a quarter of the embedding's instructions.
    private let activations: [UnsafeMutablePointer<Float>]
    private var firstRows: [Int]
    private static let spareWindows = 1
    /// Rows of each layer's output the next window adds (and drops from the front); nil where a
    /// pool's stride does not divide the hop, so that every window is computed whole.
    private let newRows: [Int]?
    /// One row per output position: the kernel's patch of the input, `[kernelTime][kernelBands][inputs]`
    /// (for the kernels more than one band wide).
    private let patches: UnsafeMutablePointer<Float>
    private var hasWindow = false

    init(network: SpeechEmbedding) {
        _ = Kernels.singleThreadedBLAS
        self.network = network
        shapes = network.shapes
        activations = shapes.map { .allocate(capacity: (1 + Self.spareWindows) * $0.time * $0.bands * $0.channels) }
        firstRows = Array(repeating: 0, count: shapes.count)
        var largestPatches = 1
        for (layer, output) in zip(network.layers, shapes) {
            if case .conv2D(let conv) = layer, conv.kernelBands > 1 {
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
        for index in network.layers.indices {
            firstRows[index] = 0
            compute(layer: index, rows: 0..<shapes[index].time, input: input)
        }
        hasWindow = true
        output.update(from: window(network.layers.count - 1), count: network.outputs)
    }

    /// The embedding of the window `hopFrames` on from the last one embedded (`input` holds it
    /// whole): each layer drops its oldest rows and computes only the new ones. The products run
    /// on fewer rows, so values may differ from `embed`'s in the last bits.
    func embedNext(_ input: UnsafePointer<Float>, into output: UnsafeMutablePointer<Float>) {
        guard hasWindow, let newRows else { return embed(input, into: output) }
        for index in network.layers.indices {
            let shape = shapes[index], kept = shape.time - newRows[index]
            if firstRows[index] + newRows[index] + shape.time <= (1 + Self.spareWindows) * shape.time {
                firstRows[index] += newRows[index]
            } else {
                let rowSize = shape.bands * shape.channels
                activations[index].update(from: window(index) + newRows[index] * rowSize, count: kept * rowSize)
                firstRows[index] = 0
            }
            compute(layer: index, rows: kept..<shape.time, input: input)
        }
        output.update(from: window(network.layers.count - 1), count: network.outputs)
    }

    /// Layer `index`'s output for the current window: `shapes[index].time` rows.
    private func window(_ index: Int) -> UnsafeMutablePointer<Float> {
        activations[index] + firstRows[index] * shapes[index].bands * shapes[index].channels
    }

    /// Forgets the last window: the next one is computed whole.
    func reset() { hasWindow = false }

    /// Rows `rows` of layer `index`'s output, from the window (`input`) or the layer before.
    private func compute(layer index: Int, rows: Range<Int>, input: UnsafePointer<Float>) {
        let inShape = index == 0 ? (time: network.windowFrames, bands: network.melBands, channels: 1) : shapes[index - 1]
        let x = index == 0 ? input : UnsafePointer(window(index - 1))
        switch network.layers[index] {
        case .conv2D(let conv): convolve(conv, x, inShape, into: window(index), shapes[index], rows: rows)
        case .maxPool(let time, let bands): pool(time: time, bands: bands, x, inShape, into: window(index), shapes[index], rows: rows)
        }
    }

    private func convolve(
        _ conv: SpeechEmbedding.Conv2DLayer, _ x: UnsafePointer<Float>, _ inShape: (time: Int, bands: Int, channels: Int),
        into output: UnsafeMutablePointer<Float>, _ outShape: (time: Int, bands: Int, channels: Int), rows times: Range<Int>
    ) {
        let (bands, channels) = (inShape.bands, inShape.channels)
        let rowLength = conv.multiplyAddsPerOutput
        let rows = times.count * outShape.bands
        let y = output + times.lowerBound * outShape.bands * conv.outputs
        conv.weights.withUnsafeBufferPointer { w in
            /// Y (rows × outputs) = A (rows × columns, row stride `lda`) · Bᵀ, B being outputs ×
            /// columns of W (row stride `rowLength`); `accumulate` adds to Y instead.
            func multiply(_ a: UnsafePointer<Float>, lda: Int, _ b: UnsafePointer<Float>, columns: Int, accumulate: Bool) {
                cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, Int32(rows), Int32(conv.outputs), Int32(columns),
                            1, a, Int32(lda), b, Int32(rowLength), accumulate ? 1 : 0, y, Int32(conv.outputs))
            }
            if conv.kernelBands == 1 {
                // A kernel one band wide needs no patches: for each tap dt, the input rows
                // (t + dt, b) of the output rows (t, b) lie one after another already.
                for dt in 0..<conv.kernelTime {
                    multiply(x + (times.lowerBound + dt) * bands * channels, lda: channels,
                             w.baseAddress! + dt * channels, columns: channels, accumulate: dt > 0)
                }
                return
            }
            // im2col: row (t, b) holds x[t + dt][b + db − halfKernel][·] for every tap, zeros
            // beyond the bands — for each dt one contiguous run of the input.
            let halfKernel = conv.kernelBands / 2, tapRow = conv.kernelBands * channels
            for t in times {
                for b in 0..<bands {
                    let firstBand = max(0, b - halfKernel), endBand = min(bands, b - halfKernel + conv.kernelBands)
                    let before = (firstBand - (b - halfKernel)) * channels, inside = (endBand - firstBand) * channels
                    var row = patches + ((t - times.lowerBound) * bands + b) * rowLength
                    for dt in 0..<conv.kernelTime {
                        if before > 0 { row.update(repeating: 0, count: before) }
                        (row + before).update(from: x + ((t + dt) * bands + firstBand) * channels, count: inside)
                        if before + inside < tapRow { (row + before + inside).update(repeating: 0, count: tapRow - before - inside) }
                        row += tapRow
                    }
                }
            }
            multiply(patches, lda: rowLength, w.baseAddress!, columns: rowLength, accumulate: false)
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
