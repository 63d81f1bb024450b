import Foundation
import Synchronization

/// Plays a signal `speed` times faster, tempo and pitch together, by band-limited interpolation
/// (J. O. Smith, "Digital Audio Resampling"): output sample j is the input at position j·speed,
/// read through a Kaiser-windowed sinc whose cutoff lies below the lower of the two Nyquist
/// frequencies. The same alignment as libsamplerate (output 0 is input position 0), at a
/// fraction of the cost: training resamples every keyword window it draws, and libsamplerate's
/// medium sinc filter took half the training time. Outside the signal is silence.
struct SpeedPerturbation: Sendable {
    let speed: Double
    private let kernels: Kernels

    init(speed: Double) {
        precondition(speed > 0, "speed must be positive")
        self.speed = speed
        // Played faster, input frequencies above Nyquist/speed would fold back: cut them.
        // Quantised (downward) so that a few tables serve every speed.
        let cutoff = (Self.passband * min(1, 1 / speed) * Double(Self.cutoffSteps)).rounded(.down)
        kernels = Kernels.cached(cutoffStep: Int(cutoff))
    }

    /// Input samples the filter reads on either side of an output position.
    var reach: Int { kernels.halfWidth }

    /// Passband edge, as a share of the lower Nyquist frequency: 0.95 · 8 kHz = 7.6 kHz for the
    /// input when it is slowed down, above the top mel band (7 kHz); with a transition band
    /// about 1.1 kHz wide the response is flat up to 7 kHz, so keyword windows keep the band
    /// that unresampled negative audio has.
    static let passband = 0.95
    /// Cutoffs are rounded down to a multiple of 1/cutoffSteps of the input's Nyquist frequency.
    static let cutoffSteps = 128

    /// The signal played `speed` times faster: `round(count / speed)` samples.
    func apply(_ signal: [Float]) -> [Float] {
        let outputCount = Int((Double(signal.count) / speed).rounded())
        guard outputCount > 0 else { return [] }
        let taps = kernels.taps, halfWidth = kernels.halfWidth
        // Silence on either side, so every kernel reads inside the buffer.
        var padded = [Float](repeating: 0, count: signal.count + 2 * taps)
        padded.replaceSubrange(taps..<(taps + signal.count), with: signal)
        var output = [Float](repeating: 0, count: outputCount)
        // Output samples whose kernel reads only silence stay 0: a keyword window is mostly the
        // silence around a short clip, and skipping it halves the work.
        guard let first = signal.firstIndex(where: { $0 != 0 }), let last = signal.lastIndex(where: { $0 != 0 }) else { return output }
        // Conservative bounds (output j reads input ⌊j·speed⌋ − halfWidth + 1 … ⌊j·speed⌋ + halfWidth).
        let audible = max(0, Int(Double(first - halfWidth) / speed) - 1)...min(outputCount - 1, Int(Double(last + halfWidth) / speed) + 1)
        guard !audible.isEmpty else { return output }
        let vectors = taps / SIMD8<Float>.scalarCount
        padded.withUnsafeBufferPointer { input in
            kernels.values.withUnsafeBufferPointer { kernels in
                output.withUnsafeMutableBufferPointer { output in
                    for j in audible {
                        let position = Double(j) * speed
                        let n = Int(position)
                        let phase = Int(((position - Double(n)) * Double(Kernels.phases)).rounded())
                        // Tap k reads input sample n − halfWidth + 1 + k.
                        let first = input.baseAddress! + (n - halfWidth + 1 + taps)
                        let kernel = kernels.baseAddress! + phase * taps
                        var sum = SIMD8<Float>()
                        for v in 0..<vectors {
                            let offset = v * SIMD8<Float>.scalarCount
                            sum += Self.load(first + offset) * Self.load(kernel + offset)
                        }
                        output[j] = sum.sum()
                    }
                }
            }
        }
        return output
    }

    @inline(__always)
    private static func load(_ p: UnsafePointer<Float>) -> SIMD8<Float> {
        UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Float>.self)
    }
}

extension SpeedPerturbation {
    /// Windowed-sinc kernels for one cutoff, tabulated at `phases + 1` fractional positions.
    final class Kernels: Sendable {
        /// Input samples read on either side of an output position.
        let halfWidth: Int
        /// Row p: the `taps` weights for a position p/phases past an input sample.
        let values: [Float]
        var taps: Int { 2 * halfWidth }

        /// Zero crossings of the sinc on either side of the centre: with the Kaiser window's
        /// β, they set the transition band (Kaiser's estimate: (A − 8) / (2.285 · taps) radians).
        static let zeroCrossings = 32.0
        /// Kaiser window shape: stopband attenuation of about 80 dB.
        static let kaiserBeta = 8.0
        /// Fractional positions tabulated; the nearest is used, an error of at most 1/1024
        /// sample (a phase error of −50 dB at 7 kHz).
        static let phases = 512

        init(cutoff: Double) {
            // A whole number of SIMD vectors per kernel.
            let half = SIMD8<Float>.scalarCount / 2
            halfWidth = Int((Self.zeroCrossings / cutoff / Double(half)).rounded(.up)) * half
            let taps = 2 * halfWidth, halfWidth = Double(halfWidth)
            let i0Beta = Self.besselI0(Self.kaiserBeta)
            var values = [Float](repeating: 0, count: (Self.phases + 1) * taps)
            for phase in 0...Self.phases {
                let fraction = Double(phase) / Double(Self.phases)
                for k in 0..<taps {
                    let distance = Double(k) - halfWidth + 1 - fraction
                    let x = cutoff * distance
                    let sinc = x == 0 ? 1 : sin(Double.pi * x) / (Double.pi * x)
                    let r = distance / halfWidth
                    let window = abs(r) < 1 ? Self.besselI0(Self.kaiserBeta * (1 - r * r).squareRoot()) / i0Beta : 0
                    values[phase * taps + k] = Float(cutoff * sinc * window)
                }
            }
            self.values = values
        }

        private static let cache = Cache()

        /// The kernels for a cutoff of `cutoffStep / cutoffSteps`, made once.
        static func cached(cutoffStep: Int) -> Kernels { cache.kernels(cutoffStep: cutoffStep) }

        /// Kernels made so far, by cutoff step; threads drawing training windows share it.
        private final class Cache: Sendable {
            private let made = Mutex<[Int: Kernels]>([:])

            func kernels(cutoffStep: Int) -> Kernels {
                made.withLock { made in
                    if let kernels = made[cutoffStep] { return kernels }
                    let kernels = Kernels(cutoff: Double(cutoffStep) / Double(SpeedPerturbation.cutoffSteps))
                    made[cutoffStep] = kernels
                    return kernels
                }
            }
        }

        /// The modified Bessel function of the first kind, order 0, by its power series
        /// Σ ((x/2)^k / k!)², which converges quickly for the Kaiser window's arguments (≤ β).
        static func besselI0(_ x: Double) -> Double {
            var sum = 1.0, term = 1.0, k = 1.0
            while term > 1e-12 * sum {
                term *= (x / (2 * k)) * (x / (2 * k))
                sum += term
                k += 1
            }
            return sum
        }
    }
}
