import CBLAS

/// The few vector kernels inference spends its time in: portable Swift SIMD (SSE/AVX on x86,
/// NEON on the Raspberry Pi) and, for matrix × vector, OpenBLAS — as fast in a release build
/// and still fast in a debug one, where the SIMD loop runs several times slower. No allocation.
enum Kernels {
    /// Σ a[i]·b[i] over `count` elements.
    @inline(__always)
    static func dot(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, count: Int) -> Float {
        var acc0 = SIMD8<Float>.zero, acc1 = SIMD8<Float>.zero
        let ra = UnsafeRawPointer(a), rb = UnsafeRawPointer(b)
        var i = 0
        while i + 16 <= count {
            acc0 += ra.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
                * rb.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
            acc1 += ra.loadUnaligned(fromByteOffset: i * 4 + 32, as: SIMD8<Float>.self)
                * rb.loadUnaligned(fromByteOffset: i * 4 + 32, as: SIMD8<Float>.self)
            i += 16
        }
        if i + 8 <= count {
            acc0 += ra.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
                * rb.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
            i += 8
        }
        var sum = (acc0 + acc1).sum()
        while i < count {
            sum += a[i] * b[i]
            i += 1
        }
        return sum
    }

    /// y[o] += Σ_i W[o][i]·x[i] for a row-major `rows × columns` matrix W.
    @inline(__always)
    static func addMatrixVector(
        _ matrix: UnsafePointer<Float>, rows: Int, columns: Int,
        _ x: UnsafePointer<Float>, into y: UnsafeMutablePointer<Float>
    ) {
        _ = singleThreadedBLAS
        cblas_sgemv(CblasRowMajor, CblasNoTrans, Int32(rows), Int32(columns), 1, matrix, Int32(columns), x, 1, 1, y, 1)
    }

    /// OpenBLAS splits its products across threads by default; a detector runs on the audio thread alone.
    static let singleThreadedBLAS: Void = hotword_blas_single_threaded()

    /// y[i] = x[i]·factor
    @inline(__always)
    static func scale(_ x: UnsafePointer<Float>, by factor: Float, into y: UnsafeMutablePointer<Float>, count: Int) {
        let rx = UnsafeRawPointer(x), ry = UnsafeMutableRawPointer(y)
        var i = 0
        while i + 8 <= count {
            ry.storeBytes(of: rx.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self) * factor, toByteOffset: i * 4, as: SIMD8<Float>.self)
            i += 8
        }
        while i < count {
            y[i] = x[i] * factor
            i += 1
        }
    }

    /// y[i] += a[i]·b[i]
    @inline(__always)
    static func addProduct(
        _ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, into y: UnsafeMutablePointer<Float>, count: Int
    ) {
        let ra = UnsafeRawPointer(a), rb = UnsafeRawPointer(b), ry = UnsafeMutableRawPointer(y)
        var i = 0
        while i + 8 <= count {
            let sum = ry.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
                + ra.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
                * rb.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
            ry.storeBytes(of: sum, toByteOffset: i * 4, as: SIMD8<Float>.self)
            i += 8
        }
        while i < count {
            y[i] += a[i] * b[i]
            i += 1
        }
    }
}
