import Foundation

/// Measuring tones in test signals (16 kHz).
enum ToneMeasure {
    /// A sine at `hertz`, `seconds` long.
    static func tone(hertz: Double, seconds: Double = 1, amplitude: Double = 0.5) -> [Float] {
        (0..<Int(seconds * 16_000)).map { Float(amplitude * sin(2 * Double.pi * hertz * Double($0) / 16_000)) }
    }

    /// Amplitude of the component at `hertz` in the middle of `signal` (away from its ends), by
    /// correlation with a Hann-windowed complex tone.
    static func amplitude(of signal: [Float], at hertz: Double) -> Double {
        let middle = signal[(signal.count / 4)..<(3 * signal.count / 4)]
        var re = 0.0, im = 0.0, weights = 0.0
        for (n, sample) in middle.enumerated() {
            let w = 0.5 - 0.5 * cos(2 * Double.pi * Double(n) / Double(middle.count))
            let phase = 2 * Double.pi * hertz * Double(n + middle.startIndex) / 16_000
            re += w * Double(sample) * cos(phase)
            im += w * Double(sample) * sin(phase)
            weights += w
        }
        return 2 * (re * re + im * im).squareRoot() / weights
    }
}
