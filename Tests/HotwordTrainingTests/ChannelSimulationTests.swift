import Foundation
import HotwordCore
@testable import HotwordTraining
import Testing

@Suite struct ChannelSimulationTests {
    func tone(_ frequency: Float, seconds: Float = 0.5) -> [Float] {
        (0..<Int(seconds * 16_000)).map { 0.1 * sin(2 * Float.pi * frequency * Float($0) / 16_000) }
    }

    /// Level of the second half (the filter has settled), dB relative to the input tone's.
    func gain(of filter: Biquad, at frequency: Float) -> Float {
        var signal = tone(frequency)
        filter.apply(&signal)
        let half = signal.count / 2
        return 20 * log10(Mixing.rms(signal[half...]) / Mixing.rms(tone(frequency)[half...]))
    }

    /// The cookbook filters do what their names say, at the frequencies that matter to speech.
    @Test func filtersShapeTheSpectrumAsDesigned() {
        let lowPass = Biquad.lowPass(f0: 3_500, q: 0.707, rate: 16_000)
        #expect(abs(gain(of: lowPass, at: 500)) < 0.5)
        #expect(abs(gain(of: lowPass, at: 3_500) + 3) < 0.5, "−3 dB at the cutoff")
        #expect(gain(of: lowPass, at: 7_000) < -12)
        let highPass = Biquad.highPass(f0: 300, q: 0.707, rate: 16_000)
        #expect(gain(of: highPass, at: 60) < -20 && abs(gain(of: highPass, at: 2_000)) < 0.5)
        let bell = Biquad.peaking(f0: 1_000, q: 1, gain: 8, rate: 16_000)
        #expect(abs(gain(of: bell, at: 1_000) - 8) < 0.3 && abs(gain(of: bell, at: 6_000)) < 1)
    }

    /// 8-bit μ-law keeps quiet and loud samples within a few per cent, as G.711 does, and its
    /// steps are coarse: far fewer distinct values than the input had.
    @Test func muLawRoundTripIsCloseButCoarse() {
        let values = stride(from: Float(-1), through: 1, by: 0.0005).map { $0 }
        let decoded = values.map(Channel.muLawRoundTrip)
        for (x, y) in zip(values, decoded) where abs(x) > 0.01 {
            #expect(abs(y - x) / abs(x) < 0.06, "\(x) → \(y)")
        }
        #expect(Set(decoded).count <= 255 && Set(decoded).count > 200)
    }

    /// A drawn channel keeps the level (drawn elsewhere), changes the sound, and is the same for
    /// the same seed; over many draws every kind of channel turns up.
    @Test func randomChannelsKeepTheLevelAndVary() {
        var noise = SeededRandom(seed: 9)
        let signal = (0..<16_000).map { _ in Float.random(in: -0.1...0.1, using: &noise) }
        var bandLimited = 0, clipped = 0, muLaw = 0
        for seed in 0..<200 as Range<UInt64> {
            var rng = SeededRandom(seed: seed), again = SeededRandom(seed: seed)
            let channel = Channel.random(sampleRate: 16_000, using: &rng)
            #expect(channel == Channel.random(sampleRate: 16_000, using: &again))
            var heard = signal
            channel.apply(&heard)
            let ratio = Mixing.rms(heard[...]) / Mixing.rms(signal[...])
            #expect(ratio > (channel.overdrive == nil ? 0.97 : 0.3) && ratio < 1.03, "seed \(seed): level × \(ratio)")
            #expect(heard != signal)
            if channel.bandLimit != nil { bandLimited += 1 }
            if channel.overdrive != nil { clipped += 1 }
            if channel.muLaw { muLaw += 1 }
        }
        #expect((30...90).contains(bandLimited) && (8...35).contains(clipped) && (15...60).contains(muLaw),
                "\(bandLimited) band-limited, \(clipped) clipped, \(muLaw) μ-law of 200")
    }

    /// A telephone channel leaves little above its band limit, whatever resonance it also has:
    /// what the 8 kHz prompts of a telephone corpus sound like.
    @Test func aTelephoneBandLimitRemovesTheTopBands() {
        var rng = SeededRandom(seed: 1)
        var telephones = 0
        for _ in 0..<400 {
            let channel = Channel.random(sampleRate: 16_000, using: &rng)
            guard let cutoff = channel.bandLimit, cutoff <= 4_000 else { continue }
            let top = channel.filters.reduce(Float(0)) { $0 + gain(of: $1, at: 7_500) }
            #expect(top < -10, "7.5 kHz through a \(Int(cutoff)) Hz line: \(top) dB")
            telephones += 1
        }
        #expect(telephones > 20)
    }

    /// Without telephone lines a seed gives the channel it gave, but where that had a telephone
    /// line it has a codec's band: never a band limit below 5.5 kHz.
    @Test func withoutTelephoneLinesTheBandStaysAboveACodecs() {
        var telephones = 0
        for seed in 0..<400 {
            var withLines = SeededRandom(seed: UInt64(seed)), withoutLines = withLines
            let line = Channel.random(sampleRate: 16_000, using: &withLines)
            let noLine = Channel.random(sampleRate: 16_000, telephoneLines: false, using: &withoutLines)
            if let cutoff = noLine.bandLimit { #expect(cutoff >= 5_500, "cutoff \(cutoff) Hz") }
            if let cutoff = line.bandLimit, cutoff <= 4_000 {
                telephones += 1
                #expect(noLine.bandLimit != nil)
            } else {
                #expect(line == noLine)
            }
        }
        #expect(telephones > 20)
    }

    /// Generated music is sound without speech: never silent, within full scale, harmonic (most of
    /// its energy below 2 kHz), different for each seed and the same for one.
    @Test func generatedMusicIsDeterministicAndTonal() throws {
        var a = SeededRandom(seed: 4), b = SeededRandom(seed: 4), c = SeededRandom(seed: 5)
        let music = GeneratedNoise.music(samples: 48_000, using: &a)
        #expect(music == GeneratedNoise.music(samples: 48_000, using: &b))
        #expect(music != GeneratedNoise.music(samples: 48_000, using: &c))
        #expect(music.count == 48_000 && music.allSatisfy(\.isFinite))
        let seconds = stride(from: 0, to: 48_000, by: 16_000).map { Mixing.rms(music[$0..<($0 + 16_000)]) }
        #expect(seconds.allSatisfy { $0 > 0.005 }, "every second holds sound: \(seconds)")
        var low = music
        Biquad.lowPass(f0: 2_000, q: 0.707, rate: 16_000).apply(&low)
        #expect(Mixing.rms(low[...]) > 0.5 * Mixing.rms(music[...]))
    }
}
