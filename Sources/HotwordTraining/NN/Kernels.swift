/// Small vector kernels for what is not a matrix product. Plain loops over unsafe pointers:
/// the optimiser vectorises them (SSE/AVX, NEON).
enum TrainingKernels {
    /// Σ over rows of a `rows × columns` row-major matrix, added to `sums`. Rows are cut into
    /// parts that depend only on the size; partial sums are added in part order.
    static func addColumnSums(
        _ matrix: UnsafePointer<Float>, rows: Int, columns: Int, into sums: UnsafeMutablePointer<Float>,
        scratch: FloatBuffer, _ parallelism: Parallelism
    ) {
        addColumnReductions(rows: rows, columns: columns, into: sums, scratch: scratch, parallelism) { row, partial in
            let x = matrix + row * columns
            for c in 0..<columns { partial[c] += x[c] }
        }
    }

    /// Σ over rows of a[row][c]·b[row][c], added to `sums`.
    static func addColumnProductSums(
        _ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, rows: Int, columns: Int,
        into sums: UnsafeMutablePointer<Float>, scratch: FloatBuffer, _ parallelism: Parallelism
    ) {
        addColumnReductions(rows: rows, columns: columns, into: sums, scratch: scratch, parallelism) { row, partial in
            let x = a + row * columns, y = b + row * columns
            for c in 0..<columns { partial[c] += x[c] * y[c] }
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
        for part in 0..<parts {
            let partial = partials + part * columns
            for c in 0..<columns { sums[c] += partial[c] }
        }
    }

    /// Every row of a `rows × columns` matrix set to `vector`.
    static func broadcastRows(_ vector: UnsafePointer<Float>, rows: Int, columns: Int, into matrix: UnsafeMutablePointer<Float>) {
        for row in 0..<rows { (matrix + row * columns).update(from: vector, count: columns) }
    }
}
