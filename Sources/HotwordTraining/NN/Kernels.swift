/// Small vector kernels for what is not a matrix product, in portable SIMD (SSE/AVX on x86,
/// NEON on the Raspberry Pi): eight lanes at a time, then a scalar tail.
enum TrainingKernels {
    typealias Vector = SIMD8<Float>

    @inline(__always)
    static func load(_ p: UnsafePointer<Float>, _ i: Int) -> Vector {
        UnsafeRawPointer(p + i).loadUnaligned(as: Vector.self)
    }

    @inline(__always)
    static func store(_ v: Vector, _ p: UnsafeMutablePointer<Float>, _ i: Int) {
        UnsafeMutableRawPointer(p + i).storeBytes(of: v, as: Vector.self)
    }

    /// Calls `vector(i)` for i = 0, 8, 16, … while eight values remain, then `scalar(i)` for the rest.
    @inline(__always)
    static func loop(_ count: Int, vector: (Int) -> Void, scalar: (Int) -> Void) {
        var i = 0
        while i + Vector.scalarCount <= count {
            vector(i)
            i += Vector.scalarCount
        }
        while i < count {
            scalar(i)
            i += 1
        }
    }

    /// y[i] += x[i]
    @inline(__always)
    static func add(_ x: UnsafePointer<Float>, into y: UnsafeMutablePointer<Float>, count: Int) {
        loop(count, vector: { store(load(y, $0) + load(x, $0), y, $0) }, scalar: { y[$0] += x[$0] })
    }

    /// y[i] += a[i]·b[i]
    @inline(__always)
    static func addProduct(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, into y: UnsafeMutablePointer<Float>, count: Int) {
        loop(count, vector: { store(load(y, $0) + load(a, $0) * load(b, $0), y, $0) }, scalar: { y[$0] += a[$0] * b[$0] })
    }

    /// Σ over rows of a `rows × columns` row-major matrix, added to `sums`. Rows are cut into
    /// parts that depend only on the size; partial sums are added in part order.
    static func addColumnSums(
        _ matrix: UnsafePointer<Float>, rows: Int, columns: Int, into sums: UnsafeMutablePointer<Float>,
        scratch: FloatBuffer, _ parallelism: Parallelism
    ) {
        addColumnReductions(rows: rows, columns: columns, into: sums, scratch: scratch, parallelism) { row, partial in
            add(matrix + row * columns, into: partial, count: columns)
        }
    }

    /// Σ over rows of a[row][c]·b[row][c], added to `sums`.
    static func addColumnProductSums(
        _ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, rows: Int, columns: Int,
        into sums: UnsafeMutablePointer<Float>, scratch: FloatBuffer, _ parallelism: Parallelism
    ) {
        addColumnReductions(rows: rows, columns: columns, into: sums, scratch: scratch, parallelism) { row, partial in
            addProduct(a + row * columns, b + row * columns, into: partial, count: columns)
        }
    }

    /// The shared skeleton: `accumulate(row, partial)` adds one row's terms into its part's partial sums.
    static func addColumnReductions(
        rows: Int, columns: Int, into sums: UnsafeMutablePointer<Float>, scratch: FloatBuffer,
        _ parallelism: Parallelism, accumulate: (Int, UnsafeMutablePointer<Float>) -> Void
    ) {
        let minimumRows = max(16, 4096 / max(columns, 1))
        let parts = Parallelism.parts(count: rows, minimumPerPart: minimumRows)
        let partials = scratch.reserve(parts * columns)
        partials.update(repeating: 0, count: parts * columns)
        parallelism.forEachPart(count: rows, minimumPerPart: minimumRows) { part, range in
            let partial = partials + part * columns
            for row in range { accumulate(row, partial) }
        }
        for part in 0..<parts { add(partials + part * columns, into: sums, count: columns) }
    }

    /// Every row of a `rows × columns` matrix set to `vector`.
    static func broadcastRows(_ vector: UnsafePointer<Float>, rows: Int, columns: Int, into matrix: UnsafeMutablePointer<Float>) {
        for row in 0..<rows { (matrix + row * columns).update(from: vector, count: columns) }
    }
}
