import CBLAS
import Foundation
import HotwordSIMD

/// y = x·Wᵀ + b over rows of x, W stored [outputs, inputs] as CTranslate2 keeps it.
struct Linear {
    let weight: [Float]
    let bias: [Float]
    let inputs: Int
    let outputs: Int

    init(weight: [Float], bias: [Float], inputs: Int, outputs: Int) {
        (self.weight, self.bias, self.inputs, self.outputs) = (weight, bias, inputs, outputs)
    }

    init(_ file: CTranslate2ModelFile, _ scope: String, inputs: Int, outputs: Int) throws(WhisperModelError) {
        self.init(weight: try file.floats("\(scope)/weight", shape: [outputs, inputs]),
                  bias: try file.floats("\(scope)/bias", shape: [outputs]), inputs: inputs, outputs: outputs)
    }

    /// `rows` rows of `inputs` values into rows of `outputs` values.
    func apply(_ x: UnsafePointer<Float>, rows: Int, into y: UnsafeMutablePointer<Float>) {
        for row in 0..<rows { (y + row * outputs).initialize(repeating: 0, count: outputs) }
        add(x, rows: rows, to: y)
    }

    /// y += x·Wᵀ + b: a residual connection without a temporary.
    func add(_ x: UnsafePointer<Float>, rows: Int, to y: UnsafeMutablePointer<Float>) {
        addBias(rows: rows, to: y)
        weight.withUnsafeBufferPointer { w in
            matrixProduct(x, lda: inputs, w.baseAddress!, ldb: inputs, transposeB: true,
                          rows: rows, columns: outputs, inner: inputs, accumulate: true, into: y, ldc: outputs)
        }
    }

    /// As a convolution whose weight is stored [output, tap, channel] (`inputs` = taps × channels):
    /// output row t reads input rows t·stride … t·stride + taps − 1 of `x` (padding rows included).
    /// One product per tap, each reading the input in place (a row stride of stride × channels).
    func convolve(_ x: UnsafePointer<Float>, taps: Int, stride: Int, rows: Int, into y: UnsafeMutablePointer<Float>) {
        let channels = inputs / taps
        for row in 0..<rows { (y + row * outputs).initialize(repeating: 0, count: outputs) }
        addBias(rows: rows, to: y)
        weight.withUnsafeBufferPointer { w in
            for tap in 0..<taps {
                matrixProduct(x + tap * channels, lda: stride * channels, w.baseAddress! + tap * channels, ldb: inputs,
                              transposeB: true, rows: rows, columns: outputs, inner: channels, accumulate: true, into: y, ldc: outputs)
            }
        }
    }

    private func addBias(rows: Int, to y: UnsafeMutablePointer<Float>) {
        bias.withUnsafeBufferPointer { b in
            for row in 0..<rows {
                let output = y + row * outputs
                for i in 0..<outputs { output[i] += b[i] }
            }
        }
    }
}

/// C (rows × columns, row stride ldc) = A (rows × inner) · op(B) [+ C]: OpenBLAS's sgemm, row-major.
/// `transposeB`: B is stored columns × inner (a weight as [out, in], or keys as [time, dim]).
func matrixProduct(_ a: UnsafePointer<Float>, lda: Int, _ b: UnsafePointer<Float>, ldb: Int, transposeB: Bool,
                   rows: Int, columns: Int, inner: Int, alpha: Float = 1, accumulate: Bool,
                   into c: UnsafeMutablePointer<Float>, ldc: Int) {
    if rows == 1 {
        // One row (a decoder step): sgemv reads B where it lies, where Debian's OpenBLAS 0.3.21
        // sgemm would first copy all of B — the whole embedding table for every token's logits.
        cblas_sgemv(CblasRowMajor, transposeB ? CblasNoTrans : CblasTrans,
                    Int32(transposeB ? columns : inner), Int32(transposeB ? inner : columns), alpha, b, Int32(ldb),
                    a, 1, accumulate ? 1 : 0, c, 1)
        return
    }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, transposeB ? CblasTrans : CblasNoTrans,
                Int32(rows), Int32(columns), Int32(inner), alpha, a, Int32(lda), b, Int32(ldb),
                accumulate ? 1 : 0, c, Int32(ldc))
}

/// A zeroed buffer of floats the caller frees: the encoder's working memory, shared between
/// threads that each write their own rows.
struct Scratch: @unchecked Sendable {
    let start: UnsafeMutablePointer<Float>

    init(count: Int) {
        start = .allocate(capacity: count)
        start.initialize(repeating: 0, count: count)
    }

    subscript(index: Int) -> Float {
        get { start[index] }
        nonmutating set { start[index] = newValue }
    }

    func free() { start.deallocate() }
}

/// Runs `body(first, count)` on `threads` consecutive slices of rows 0..<rows at once (no more
/// slices than rows), returning when all are done.
func inSlices(of rows: Int, threads: Int, _ body: @Sendable (_ first: Int, _ count: Int) -> Void) {
    let slices = max(1, min(threads, rows))
    guard slices > 1 else { return body(0, rows) }
    DispatchQueue.concurrentPerform(iterations: slices) { slice in
        let first = rows * slice / slices
        body(first, rows * (slice + 1) / slices - first)
    }
}

/// Layer normalisation over each row (ε = 1e-5, Whisper's).
struct LayerNorm {
    let gamma: [Float]
    let beta: [Float]

    init(_ file: CTranslate2ModelFile, _ scope: String, width: Int) throws(WhisperModelError) {
        gamma = try file.floats("\(scope)/gamma", shape: [width])
        beta = try file.floats("\(scope)/beta", shape: [width])
    }

    func apply(_ x: UnsafePointer<Float>, rows: Int, into y: UnsafeMutablePointer<Float>) {
        let width = gamma.count
        gamma.withUnsafeBufferPointer { g in
            beta.withUnsafeBufferPointer { b in
                for row in 0..<rows {
                    let input = x + row * width, output = y + row * width
                    var mean: Float = 0
                    for i in 0..<width { mean += input[i] }
                    mean /= Float(width)
                    var variance: Float = 0
                    for i in 0..<width { let d = input[i] - mean; variance += d * d }
                    let scale = 1 / (variance / Float(width) + 1e-5).squareRoot()
                    for i in 0..<width { output[i] = (input[i] - mean) * scale * g[i] + b[i] }
                }
            }
        }
    }
}

/// The exact GELU, x·Φ(x) = x·(1 + erf(x/√2))/2, in place (CTranslate2's activation 3, as
/// Whisper was trained), a vector at a time.
func gelu(_ x: UnsafeMutablePointer<Float>, count: Int) {
    forEachVector(x, count: count) { v in 0.5 * v * (1 + (v * Float(0.5).squareRoot()).errorFunction()) }
}

/// Replaces the `count` floats at `x` by `transform` of them, 8 at a time; the last few are
/// handed over in a vector filled up with `padding`.
@inline(__always)
func forEachVector(_ x: UnsafeMutablePointer<Float>, count: Int, padding: Float = 0, _ transform: (FloatVector) -> FloatVector) {
    let whole = count - count % FloatVector.scalarCount
    for i in stride(from: 0, to: whole, by: FloatVector.scalarCount) {
        transform(FloatVector(loading: x + i)).store(to: x + i)
    }
    guard whole < count else { return }
    var tail = FloatVector(repeating: padding)
    for i in whole..<count { tail[i - whole] = x[i] }
    tail = transform(tail)
    for i in whole..<count { x[i] = tail[i - whole] }
}

/// Multi-head scaled dot-product attention for `queries` rows against `keys` rows, every head
/// read in place from its columns of the (possibly fused) Q, K and V rows — no copies. Every
/// query sees every key (the decoder's causality: its cache holds only the positions so far).
/// `scores` holds queries × keys floats.
struct AttentionShape {
    let heads: Int
    let headWidth: Int

    func attend(query q: UnsafePointer<Float>, ldq: Int, key k: UnsafePointer<Float>, ldk: Int,
                value v: UnsafePointer<Float>, ldv: Int, queries: Int, keys: Int,
                scores: UnsafeMutablePointer<Float>, into output: UnsafeMutablePointer<Float>, ldo: Int) {
        let scale = 1 / Float(headWidth).squareRoot()
        for head in 0..<heads {
            let column = head * headWidth
            matrixProduct(q + column, lda: ldq, k + column, ldb: ldk, transposeB: true,
                          rows: queries, columns: keys, inner: headWidth, alpha: scale, accumulate: false,
                          into: scores, ldc: keys)
            for row in 0..<queries { softmax(scores + row * keys, count: keys) }
            matrixProduct(scores, lda: keys, v + column, ldb: ldv, transposeB: false,
                          rows: queries, columns: headWidth, inner: keys, accumulate: false,
                          into: output + column, ldc: ldo)
        }
    }

    private func softmax(_ row: UnsafeMutablePointer<Float>, count: Int) {
        let whole = count - count % FloatVector.scalarCount
        var largestLanes = FloatVector(repeating: -.infinity)
        for i in stride(from: 0, to: whole, by: FloatVector.scalarCount) {
            let x = FloatVector(loading: row + i)
            largestLanes.replace(with: x, where: x .> largestLanes)
        }
        var largest = largestLanes.max()
        for i in whole..<count { largest = max(largest, row[i]) }
        // e^(x − largest) of each, summed (the sum is at least 1; the last vector's padding,
        // −∞, adds at most 8·e⁻⁸⁷ to it, the exponential's floor).
        var sums = FloatVector.zero
        forEachVector(row, count: count, padding: -.infinity) { x in
            let e = (x - largest).exponential()
            sums += e
            return e
        }
        let inverse = 1 / sums.sum()
        forEachVector(row, count: count) { $0 * inverse }
    }
}
