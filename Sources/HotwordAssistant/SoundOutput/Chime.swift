import Foundation
import HotwordCore

/// The built-in wake cue: two soft sine tones a fifth apart (A5 then E6), 90 ms each with
/// 10 ms fades, at 16 kHz — made by code, so it is the same everywhere and needs no file.
public enum Chime {
    public static let samples: [Float] = {
        let toneLength = AudioFormat.sampleRate * 90 / 1000
        let fadeLength = AudioFormat.sampleRate * 10 / 1000
        let amplitude: Float = 0.3
        var samples: [Float] = []
        samples.reserveCapacity(2 * toneLength)
        for frequency in [880.0, 1318.5] {
            for index in 0..<toneLength {
                let fade = Float(min(index, toneLength - 1 - index, fadeLength)) / Float(fadeLength)
                let phase = 2 * Double.pi * frequency * Double(index) / Double(AudioFormat.sampleRate)
                samples.append(amplitude * fade * Float(sin(phase)))
            }
        }
        return samples
    }()
}
