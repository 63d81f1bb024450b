import Foundation
import HotwordCore

/// Signal-level building blocks of augmentation: levels, noise at a chosen SNR, synthetic rooms.
public enum Mixing {
    /// Root-mean-square level.
    public static func rms(_ samples: ArraySlice<Float>) -> Float {
        guard !samples.isEmpty else { return 0 }
        var sum: Float = 0
        for s in samples { sum += s * s }
        return (sum / Float(samples.count)).squareRoot()
    }

    /// Scales `samples` to the given RMS level (silence stays silence).
    public static func normalise(_ samples: [Float], toRMS target: Float) -> [Float] {
        let level = rms(samples[...])
        guard level > 1e-9 else { return samples }
        return samples.map { $0 * target / level }
    }

    /// Adds `noise` (looped, from `offset`) to `signal` so that the signal-to-noise ratio over
    /// `reference` (the part of the signal that holds speech) is `snr` dB.
    public static func addNoise(_ noise: [Float], offset: Int, to signal: inout [Float], snr: Float, reference: Range<Int>) {
        guard !noise.isEmpty, !signal.isEmpty else { return }
        let speechLevel = rms(signal[reference.clamped(to: 0..<signal.count)])
        var noiseEnergy: Float = 0
        forEachNoiseSample(noise, offset: offset, count: signal.count) { _, n in noiseEnergy += n * n }
        let noiseLevel = (noiseEnergy / Float(signal.count)).squareRoot()
        guard speechLevel > 1e-9, noiseLevel > 1e-9 else { return }
        let scale = speechLevel / (noiseLevel * pow(10, snr / 20))
        forEachNoiseSample(noise, offset: offset, count: signal.count) { i, n in signal[i] += scale * n }
    }

    /// Calls `body(i, noise[(offset + i) % noise.count])` for i in 0..<count, without a division
    /// per sample (which cost more than the mixing).
    @inline(__always)
    private static func forEachNoiseSample(_ noise: [Float], offset: Int, count: Int, _ body: (Int, Float) -> Void) {
        var k = offset % noise.count
        for i in 0..<count {
            body(i, noise[k])
            k += 1
            if k == noise.count { k = 0 }
        }
    }

    /// A small-room impulse response: a direct path, then exponentially decaying noise reaching
    /// −60 dB after `rt60` seconds (Polack's statistical model), with early reflections sparse.
    public static func syntheticRoomResponse(rt60: Float, directToReverberant: Float, sampleRate: Int = AudioFormat.sampleRate,
                                             using rng: inout some RandomNumberGenerator) -> [Float] {
        let length = Int(rt60 * Float(sampleRate))
        var response = [Float](repeating: 0, count: max(length, 2))
        let decay = 6.9078 / (rt60 * Float(sampleRate))  // ln(1000): 60 dB of amplitude decay
        let firstReflection = Int(Float.random(in: 0.002...0.008, using: &rng) * Float(sampleRate))
        for n in firstReflection..<response.count {
            // Sparse at first (discrete reflections), dense later (diffuse tail).
            let density = min(1, Float(n) / Float(sampleRate) / 0.05)
            if Float.random(in: 0..<1, using: &rng) < density {
                response[n] = Float.random(in: -1...1, using: &rng) * exp(-decay * Float(n))
            }
        }
        let tailEnergy = response.reduce(0) { $0 + $1 * $1 }.squareRoot()
        if tailEnergy > 0 {
            let scale = 1 / (tailEnergy * pow(10, directToReverberant / 20))
            for n in response.indices { response[n] *= scale }
        }
        response[0] = 1
        return response
    }
}
