import Foundation

/// Background noise made without recordings, for training when the user has none: the three
/// classic noise colours (white: hiss; pink: rain, fans, a busy room; brown: rumble, traffic)
/// and babble (several voices talking at once, like a café or a television).
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
}
