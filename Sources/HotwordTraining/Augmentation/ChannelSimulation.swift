import Foundation
import HotwordCore

/// A second-order IIR section (direct form I), with coefficients from R. Bristow-Johnson's
/// "Cookbook formulae for audio EQ biquad filter coefficients".
struct Biquad: Sendable, Hashable {
    var b0, b1, b2, a1, a2: Float

    /// Normalised so that a0 = 1.
    private init(b0: Double, b1: Double, b2: Double, a0: Double, a1: Double, a2: Double) {
        self.b0 = Float(b0 / a0); self.b1 = Float(b1 / a0); self.b2 = Float(b2 / a0)
        self.a1 = Float(a1 / a0); self.a2 = Float(a2 / a0)
    }

    private static func terms(_ f0: Double, _ q: Double, _ rate: Double) -> (cosine: Double, alpha: Double) {
        let w0 = 2 * Double.pi * f0 / rate
        return (cos(w0), sin(w0) / (2 * q))
    }

    static func lowPass(f0: Double, q: Double, rate: Double) -> Biquad {
        let (c, alpha) = terms(f0, q, rate)
        return Biquad(b0: (1 - c) / 2, b1: 1 - c, b2: (1 - c) / 2, a0: 1 + alpha, a1: -2 * c, a2: 1 - alpha)
    }

    static func highPass(f0: Double, q: Double, rate: Double) -> Biquad {
        let (c, alpha) = terms(f0, q, rate)
        return Biquad(b0: (1 + c) / 2, b1: -(1 + c), b2: (1 + c) / 2, a0: 1 + alpha, a1: -2 * c, a2: 1 - alpha)
    }

    /// A bell of `gain` dB around `f0`.
    static func peaking(f0: Double, q: Double, gain: Double, rate: Double) -> Biquad {
        let (c, alpha) = terms(f0, q, rate), a = pow(10, gain / 40)
        return Biquad(b0: 1 + alpha * a, b1: -2 * c, b2: 1 - alpha * a, a0: 1 + alpha / a, a1: -2 * c, a2: 1 - alpha / a)
    }

    /// Filters `signal` in place, starting from rest.
    func apply(_ signal: inout [Float]) {
        var (x1, x2, y1, y2): (Float, Float, Float, Float) = (0, 0, 0, 0)
        for i in signal.indices {
            let x = signal[i]
            let y = b0 * x + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
            (x2, x1, y2, y1) = (x1, x, y1, y)
            signal[i] = y
        }
    }
}

/// The microphone, sound card and line a recording came through, drawn at random: a model that
/// hears every voice through many channels cannot learn "crowd-sourced phone recording" as a
/// cue for the wake word, nor "read-speech studio microphone" as a cue against it.
///
/// A channel is a chain of: a low cut (small microphones and their housings lose the bass), one
/// to three resonances or dips (housings, rooms, cheap capsules), sometimes a band limit (a
/// telephone line's 3.4–4 kHz, or a codec's 5.5–7.5 kHz), sometimes 8-bit μ-law quantisation (the
/// telephone codec, G.711), and sometimes an overdriven input stage that clips.
struct Channel: Sendable, Hashable {
    var filters: [Biquad]
    /// The cutoff of the band limit, Hz, when there is one.
    var bandLimit: Double?
    /// Gain into the clipper; nil when the input stage does not clip.
    var overdrive: Float?
    var muLaw: Bool

    /// Share of channels with a band limit, with μ-law quantisation, with clipping.
    static let bandLimitProbability: Float = 0.3
    static let muLawProbability: Float = 0.1
    static let clippingProbability: Float = 0.1

    /// `telephoneLines: false`: a codec's band where the draw would have given a telephone line's.
    static func random(sampleRate: Int, telephoneLines: Bool = true, using rng: inout SeededRandom) -> Channel {
        let rate = Double(sampleRate)
        func logUniform(_ range: ClosedRange<Double>) -> Double { exp(Double.random(in: log(range.lowerBound)...log(range.upperBound), using: &rng)) }
        var filters = [Biquad.highPass(f0: logUniform(40...400), q: 0.707, rate: rate)]
        for _ in 0..<Int.random(in: 1...3, using: &rng) {
            filters.append(.peaking(f0: logUniform(150...6_500), q: logUniform(0.5...3), gain: .random(in: -10...10, using: &rng), rate: rate))
        }
        var muLaw = false, bandLimit: Double?
        if Float.random(in: 0..<1, using: &rng) < bandLimitProbability {
            // Fourth order (two Butterworth sections): a line or codec cuts off steeply.
            let telephone = Bool.random(using: &rng) && telephoneLines
            let cutoff = telephone ? Double.random(in: 3_400...4_000, using: &rng) : Double.random(in: 5_500...7_500, using: &rng)
            filters += [.lowPass(f0: cutoff, q: 0.541, rate: rate), .lowPass(f0: cutoff, q: 1.307, rate: rate)]
            bandLimit = cutoff
            if telephone { filters.append(.highPass(f0: .random(in: 200...350, using: &rng), q: 0.707, rate: rate)) }
            muLaw = telephone && Float.random(in: 0..<1, using: &rng) < 3 * muLawProbability
        } else {
            muLaw = Float.random(in: 0..<1, using: &rng) < muLawProbability
        }
        let overdrive = Float.random(in: 0..<1, using: &rng) < clippingProbability ? Float.random(in: 1.5...6, using: &rng) : nil
        return Channel(filters: filters, bandLimit: bandLimit, overdrive: overdrive, muLaw: muLaw)
    }

    /// `audio` as heard through this channel, at the same RMS level (the level is drawn elsewhere)
    /// except for what clipping takes off.
    func apply(_ audio: inout [Float]) {
        let before = Mixing.rms(audio[...])
        guard before > 1e-9 else { return }
        for filter in filters { filter.apply(&audio) }
        let after = Mixing.rms(audio[...])
        if after > 1e-9 { let gain = before / after; for i in audio.indices { audio[i] *= gain } }
        if let overdrive {
            // Drive the loudest part into the rails, as a gain set too high does, then back down.
            let peak = audio.reduce(0) { max($0, abs($1)) }
            let drive = overdrive / max(peak, 1e-6)
            for i in audio.indices { audio[i] = max(-1, min(1, audio[i] * drive)) / drive }
        }
        if muLaw {
            let peak = audio.reduce(0) { max($0, abs($1)) }
            let scale = peak > 1 ? 1 / peak : 1
            for i in audio.indices { audio[i] = Self.muLawRoundTrip(audio[i] * scale) / scale }
        }
    }

    /// Encodes to 8-bit μ-law (μ = 255) and back.
    static func muLawRoundTrip(_ x: Float) -> Float {
        let mu: Float = 255
        let magnitude = min(1, abs(x))
        let encoded = (log1p(mu * magnitude) / log1p(mu) * 127).rounded() / 127
        let decoded = (pow(1 + mu, encoded) - 1) / mu
        return x < 0 ? -decoded : decoded
    }
}
