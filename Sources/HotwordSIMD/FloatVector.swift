/// The SIMD width of the frontend's inner loops: portable Swift SIMD, two 128-bit registers
/// on ARM NEON and SSE, one on AVX.
public typealias FloatVector = SIMD8<Float>

extension FloatVector {
    /// `count` rounded up to whole vectors, so buffers can be read and written vector by vector.
    @inlinable
    public static func paddedCount(_ count: Int) -> Int {
        (count + scalarCount - 1) / scalarCount * scalarCount
    }

    /// The 8 floats at `p`, any alignment.
    @inlinable @inline(__always)
    public init(loading p: UnsafePointer<Float>) {
        self = UnsafeRawPointer(p).loadUnaligned(as: FloatVector.self)
    }

    /// Writes the 8 lanes to `p`, any alignment.
    @inlinable @inline(__always)
    public func store(to p: UnsafeMutablePointer<Float>) {
        UnsafeMutableRawPointer(p).storeBytes(of: self, as: FloatVector.self)
    }
}

extension FloatVector {
    /// Each lane held to [lowest, highest]. (The standard library's `pointwiseMin` and
    /// `pointwiseMax` were left as calls in a release build, two per vector in the hot loops.)
    @inlinable @inline(__always)
    public func clamped(from lowest: Float, to highest: Float) -> FloatVector {
        replacing(with: lowest, where: self .< lowest).replacing(with: highest, where: self .> highest)
    }
}

extension FloatVector {
    /// ln of each lane, for positive normal floats (what `FeatureExtractor` passes it: energies
    /// clamped to `logFloor`); within a few ulp of libm's logf, a fraction of the cost.
    ///
    /// With x = m·2^e and m ∈ [√½, √2): ln x = e·ln 2 + 2·atanh(s), s = (m − 1)/(m + 1), |s| < 0.172,
    /// and 2·atanh(s) = 2(s + s³/3 + s⁵/5 + s⁷/7 + s⁹/9 + …), whose next term 2s¹¹/11 < 1e-9.
    /// A non-finite lane gives a finite, meaningless result.
    @inlinable @inline(__always)
    public func naturalLogarithm() -> FloatVector {
        let bits = unsafeBitCast(self, to: SIMD8<Int32>.self)
        var exponent = FloatVector(((bits &>> 23) & 0xFF) &- 127)
        let mantissaBits = (bits & 0x007F_FFFF) | Int32(bitPattern: Float(1).bitPattern)
        var m = unsafeBitCast(mantissaBits, to: FloatVector.self)
        let aboveRange = m .>= Float(2).squareRoot()
        m.replace(with: m * 0.5, where: aboveRange)
        exponent.replace(with: exponent + 1, where: aboveRange)
        let s = (m - 1) / (m + 1)
        let s2 = s * s
        // Horner: 2s·(1 + s²/3 + s⁴/5 + s⁶/7 + s⁸/9).
        var series: FloatVector = s2 * Float(1.0 / 9) + Float(1.0 / 7)
        series = series * s2 + Float(1.0 / 5)
        series = series * s2 + Float(1.0 / 3)
        series = series * s2 + 1
        series *= 2 * s
        let ln2: Float = 0.693_147_180_559_945_3
        return exponent * ln2 + series
    }
}

extension FloatVector {
    /// e^x of each lane, within a few ulp of libm's expf for x in [−87, 88] (lanes outside are
    /// clamped to it, so the result is always a finite normal float).
    ///
    /// e^x = 2^n·e^r with n = round(x/ln 2) and r = x − n·ln 2 (ln 2 split in two, so r is exact
    /// to float precision), |r| ≤ ln 2 / 2, and e^r by its Taylor series to r⁷ (next term < 5e-9).
    @inlinable @inline(__always)
    public func exponential() -> FloatVector {
        let x = clamped(from: -87, to: 88)
        // Adding 1.5·2²³ rounds to an integer held in the low mantissa bits: n as a float and as
        // bits, without the per-lane conversions that SIMD rounding and Int32(_:) cost.
        let magic: Float = 12_582_912
        let shifted = x * Float(1.442_695_040_888_963_4) + magic
        let n = shifted - magic
        let nBits = unsafeBitCast(shifted, to: SIMD8<Int32>.self) &- Int32(bitPattern: magic.bitPattern)
        let r = x - n * Float(0.693_145_751_953_125) - n * Float(1.428_606_765_330_187_0e-6)
        // Horner: 1 + r(1 + r(1/2 + r(1/6 + r(1/24 + r(1/120 + r(1/720 + r/5040)))))).
        var series: FloatVector = r * Float(1.0 / 5040) + Float(1.0 / 720)
        series = series * r + Float(1.0 / 120)
        series = series * r + Float(1.0 / 24)
        series = series * r + Float(1.0 / 6)
        series = series * r + 0.5
        series = series * r + 1
        series = series * r + 1
        let twoToTheN = unsafeBitCast((nBits &+ 127) &<< 23, to: FloatVector.self)
        return series * twoToTheN
    }

    /// a^b of each lane for a > 0 (a positive normal float), as e^(b·ln a).
    @inlinable @inline(__always)
    public func power(_ exponent: Float) -> FloatVector {
        (exponent * naturalLogarithm()).exponential()
    }
}

extension FloatVector {
    /// erf of each lane, within 4e-7 of it (absolute: the formula's 1.5e-7 and float rounding): Abramowitz & Stegun's 7.1.26,
    /// erf(x) = 1 − t(a₁ + t(a₂ + t(a₃ + t(a₄ + t·a₅))))·e^(−x²), t = 1/(1 + p·x) for x ≥ 0, and
    /// erf(−x) = −erf(x). What GELU needs (Whisper's activation), at a fraction of libm's erff.
    @inlinable @inline(__always)
    public func errorFunction() -> FloatVector {
        let x = (self.replacing(with: -self, where: self .< 0)).clamped(from: 0, to: 9)
        let t = 1 / (x * Float(0.327_591_1) + 1)
        var polynomial: FloatVector = t * Float(1.061_405_429) + Float(-1.453_152_027)
        polynomial = polynomial * t + Float(1.421_413_741)
        polynomial = polynomial * t + Float(-0.284_496_736)
        polynomial = polynomial * t + Float(0.254_829_592)
        polynomial *= t
        let gaussian = (FloatVector.zero - x * x).exponential()
        let magnitude = 1 - polynomial * gaussian
        return magnitude.replacing(with: -magnitude, where: self .< 0)
    }
}
