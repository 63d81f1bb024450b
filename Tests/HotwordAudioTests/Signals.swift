import Foundation

/// Test signals and the measurements the audio tests make on them.
enum Signals {
    static func sine(frequency: Double, sampleRate: Double, seconds: Double, amplitude: Double = 0.5) -> [Float] {
        let count = Int(sampleRate * seconds)
        return (0..<count).map { Float(amplitude * sin(2 * Double.pi * frequency * Double($0) / sampleRate)) }
    }

    /// The middle of a signal: away from the filter's start-up and tail.
    static func middle(_ samples: [Float], dropping fraction: Double = 0.1) -> ArraySlice<Float> {
        let margin = Int(Double(samples.count) * fraction)
        return samples[margin..<(samples.count - margin)]
    }

    /// Frequency from the first and last upward zero crossings (interpolated between samples),
    /// which is precise to a small fraction of a hertz over a second of signal.
    static func frequency(of samples: ArraySlice<Float>, sampleRate: Double) -> Double {
        var crossings: [Double] = []
        var index = samples.startIndex
        while index + 1 < samples.endIndex {
            let a = Double(samples[index]), b = Double(samples[index + 1])
            if a < 0, b >= 0 { crossings.append(Double(index) + a / (a - b)) }
            index += 1
        }
        guard let first = crossings.first, let last = crossings.last, crossings.count > 1 else { return 0 }
        return Double(crossings.count - 1) * sampleRate / (last - first)
    }

    /// Peak amplitude of a sine, from its RMS (robust to where the samples fall on the wave).
    static func sineAmplitude(_ samples: ArraySlice<Float>) -> Double {
        let power = samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count)
        return (2 * power).squareRoot()
    }
}

/// SplitMix64: a seeded generator so random chunkings are reproducible when a test fails.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
