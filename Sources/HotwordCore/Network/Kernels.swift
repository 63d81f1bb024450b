/// The few vector kernels inference spends its time in. Portable Swift SIMD only
/// (SSE/AVX on x86, NEON on the Raspberry Pi); no allocation.
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
        for row in 0..<rows {
            y[row] += dot(matrix + row * columns, x, count: columns)
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
