import Foundation
import HotwordCore

/// Background noise made without recordings, for training when the user has none: the three
/// classic noise colours (white: hiss; pink: rain, fans, a busy room; brown: rumble, traffic)
/// babble (several voices talking at once, like a café or a television) and music without words.
public enum GeneratedNoise {
    public static func white(samples: Int, using rng: inout some RandomNumberGenerator) -> [Float] {
        (0..<samples).map { _ in Float.random(in: -1...1, using: &rng) }
    }

    /// Power falling 3 dB per octave (Voss–McCartney): a sum of 12 random values, value k
    /// drawn afresh every 2^k samples, so each octave below 8 kHz gets the same power.
    public static func pink(samples: Int, using rng: inout some RandomNumberGenerator) -> [Float] {
        var rows = [Float](repeating: 0, count: 12)
        var total: Float = 0
        return (0..<samples).map { n in
            let row = min((n + 1).trailingZeroBitCount, rows.count - 1)
            total -= rows[row]
            rows[row] = Float.random(in: -1...1, using: &rng)
            total += rows[row]
            return total + Float.random(in: -1...1, using: &rng)
        }
    }

    /// Power falling 6 dB per octave: integrated white noise, slowly pulled back to zero so it
    /// does not wander off (a 20 Hz high-pass at 16 kHz).
    public static func brown(samples: Int, using rng: inout some RandomNumberGenerator) -> [Float] {
        var level: Float = 0
        return (0..<samples).map { _ in
            level = 0.992 * level + Float.random(in: -1...1, using: &rng)
            return level
        }
    }

    /// `voices` clips of speech at a time, each at the same level and starting anywhere, summed
    /// into `samples` samples.
    public static func babble(samples: Int, from speech: [[Float]], voices: Int = 5,
                              using rng: inout some RandomNumberGenerator) -> [Float] {
        var out = [Float](repeating: 0, count: samples)
        let clips = speech.filter { !$0.isEmpty }.map { Mixing.normalise($0, toRMS: 0.1) }
        guard !clips.isEmpty else { return out }
        for _ in 0..<voices {
            var position = Int.random(in: 0..<max(1, samples / 4), using: &rng)
            while position < samples {
                let clip = clips.randomElement(using: &rng)!
                for (offset, value) in clip.prefix(samples - position).enumerated() { out[position + offset] += value }
                position += clip.count + Int.random(in: 0...4_000, using: &rng)
            }
        }
        return out
    }

    /// Music without words: a melody and chords in one key, notes with harmonics that fade like
    /// plucked or struck strings (or hold like an organ), over a kick, snare and hi-hat pattern.
    /// Sustained harmonic tones are what a wake word hears in music that no noise recording has.
    public static func music(samples: Int, sampleRate: Int = AudioFormat.sampleRate, using rng: inout some RandomNumberGenerator) -> [Float] {
        var out = [Float](repeating: 0, count: samples)
        let rate = Float(sampleRate)
        let beat = Int(60 / Float.random(in: 70...160, using: &rng) * rate)
        let scale = Bool.random(using: &rng) ? [0, 2, 4, 5, 7, 9, 11] : [0, 2, 3, 5, 7, 8, 10]
        let root = Int.random(in: 45...57, using: &rng)
        let brightness = Float.random(in: 0.6...2, using: &rng), decay = Float.random(in: 0.15...2, using: &rng)
        let sustained = Float.random(in: 0..<1, using: &rng) < 0.3
        func note(_ midi: Int, at start: Int, length: Int, level: Float) {
            let frequency = 440 * pow(2, Float(midi - 69) / 12)
            let partials = max(1, min(10, Int(7_000 / frequency)))
            let end = min(samples, start + length)
            guard start < end else { return }
            for k in 1...partials {
                // A resonator (y[n] = 2 cos ω · y[n−1] − y[n−2]) for the sine and a constant
                // factor per sample for the fade: no transcendental function per sample.
                let step = 2 * Float.pi * frequency * Float(k) / rate, coefficient = 2 * cos(step)
                var (previous, current) = (-sin(step), Float(0))
                let fade = sustained ? 1 : exp(-Float(k).squareRoot() / (decay * rate))
                var envelope = level / pow(Float(k), brightness)
                for n in start..<end {
                    out[n] += envelope * min(1, Float(n - start) / 80) * current
                    (previous, current) = (current, coefficient * current - previous)
                    envelope *= fade
                }
            }
        }
        func drum(at start: Int, pitch: Float?, noise: Float, decaySeconds: Float, level: Float) {
            let end = min(samples, start + Int(decaySeconds * 5 * rate))
            guard start < end else { return }
            var phase: Float = 0, previous: Float = 0
            for n in start..<end {
                let t = Float(n - start) / rate
                let envelope = level * exp(-t / decaySeconds)
                var value: Float = 0
                if let pitch { phase += 2 * Float.pi * pitch * (1 + 2 * exp(-t / 0.02)) / rate; value += sin(phase) }
                let white = Float.random(in: -1...1, using: &rng)
                value += noise * (white - previous)  // differenced: the bright noise of a snare or hi-hat
                previous = white
                out[n] += envelope * value
            }
        }
        var position = 0, degree = 0
        while position < samples {
            // A bar of four beats: a chord under it, a melody over it, drums.
            let chord = [0, 2, 4].map { root + scale[(degree + $0) % 7] + 12 * ((degree + $0) / 7) }
            for pitch in chord { note(pitch, at: position, length: 4 * beat, level: 0.08) }
            var melody = position
            while melody < position + 4 * beat {
                let length = beat * [1, 1, 2, 1][Int.random(in: 0..<4, using: &rng)] / [1, 2, 1, 1][Int.random(in: 0..<4, using: &rng)]
                let step = Int.random(in: 0..<7, using: &rng)
                note(root + 12 + scale[step] + (step < 2 ? 12 : 0), at: melody, length: length, level: 0.15)
                melody += max(length, beat / 2)
            }
            for b in 0..<4 {
                let at = position + b * beat
                drum(at: at, pitch: b % 2 == 0 ? 55 : nil, noise: b % 2 == 0 ? 0 : 0.6, decaySeconds: b % 2 == 0 ? 0.08 : 0.05, level: 0.3)
                drum(at: at + beat / 2, pitch: nil, noise: 0.3, decaySeconds: 0.01, level: 0.3)
            }
            degree = [0, 3, 4, 5][Int.random(in: 0..<4, using: &rng)]
            position += 4 * beat
        }
        return out
    }
}
