import CBLAS

/// Row-major single-precision matrix products through OpenBLAS.
enum BLAS {
    /// OpenBLAS runs single-threaded: `Parallelism` splits the products itself, in a fixed way,
    /// so that results do not depend on the number of threads.
    static let singleThreaded: Bool = {
        hotword_blas_single_threaded()
        return true
    }()

    /// C = α·op(A)·op(B) + β·C for row-major C of `m × n` and a shared dimension `k`, split by
    /// rows of C across the parts of `parallelism`.
    static func gemm(
        _ parallelism: Parallelism,
        transposeA: Bool, transposeB: Bool, m: Int, n: Int, k: Int,
        alpha: Float = 1, a: UnsafePointer<Float>, lda: Int, b: UnsafePointer<Float>, ldb: Int,
        beta: Float, c: UnsafeMutablePointer<Float>, ldc: Int
    ) {
        guard m > 0, n > 0 else { return }
        // A part is worth a thread only with enough arithmetic in it.
        let rowsPerPart = max(8, 250_000 / max(n * k, 1))
        parallelism.forEachPart(count: m, minimumPerPart: rowsPerPart) { _, rows in
            // Row i of op(A) starts at A + i·lda, or at A + i when A is stored transposed.
            let aRows = a + (transposeA ? rows.lowerBound : rows.lowerBound * lda)
            cblas_sgemm(
                CblasRowMajor, transposeA ? CblasTrans : CblasNoTrans, transposeB ? CblasTrans : CblasNoTrans,
                Int32(rows.count), Int32(n), Int32(k), alpha, aRows, Int32(lda), b, Int32(ldb),
                beta, c + rows.lowerBound * ldc, Int32(ldc))
        }
    }
}
