import Foundation

/// xoshiro256** seeded through SplitMix64: fast, good statistical quality, and identical on
/// every platform and Swift version (unlike `Float.random(in:)`, whose mapping may change).
/// Everything random in training (initial weights, dropout, shuffling) should come from one;
/// in the core so the phrase spotter's noise floor is the same at run time and in training.
/// Inlinable: training draws millions of numbers from another module.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    @usableFromInline var s0, s1, s2, s3: UInt64

    public init(seed: UInt64) {
        var mixer = seed
        s0 = SeededRandom.splitMix(&mixer)
        s1 = SeededRandom.splitMix(&mixer)
        s2 = SeededRandom.splitMix(&mixer)
        s3 = SeededRandom.splitMix(&mixer)
    }

    @inlinable
    public mutating func next() -> UInt64 {
        let result = rotate(s1 &* 5, 7) &* 9
        let shifted = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= shifted
        s3 = rotate(s3, 45)
        return result
    }

    /// Uniform in [0, 1), 24 random bits.
    @inlinable
    public mutating func uniform() -> Float { Float(next() >> 40) * 0x1p-24 }

    /// Uniform in [-limit, limit).
    @inlinable
    public mutating func uniform(limit: Float) -> Float { (2 * uniform() - 1) * limit }

    /// Standard normal (Box–Muller in Double).
    public mutating func normal() -> Float {
        let u1 = (Double(next() >> 11) + 1) * 0x1p-53  // (0, 1]: log stays finite
        let u2 = Double(next() >> 11) * 0x1p-53
        return Float((-2 * Foundation.log(u1)).squareRoot() * Foundation.cos(2 * Double.pi * u2))
    }

    /// A generator for stream number `stream` of a seed (e.g. one stream per epoch), independent
    /// of the generator seeded with the seed itself and of the other streams.
    public static func derived(seed: UInt64, stream: UInt64) -> SeededRandom {
        var mixer = seed ^ (stream &* 0xD1B5_4A32_D192_ED03)
        return SeededRandom(seed: splitMix(&mixer))
    }

    /// SplitMix64 step: also a good 64-bit hash of a counter.
    @inlinable @inline(__always)
    public static func splitMix(_ state: inout UInt64) -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    @usableFromInline @inline(__always)
    func rotate(_ x: UInt64, _ k: UInt64) -> UInt64 { (x << k) | (x >> (64 - k)) }
}
