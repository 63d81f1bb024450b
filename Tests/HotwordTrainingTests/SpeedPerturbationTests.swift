import Foundation
import HotwordAudio
import HotwordTestSupport
@testable import HotwordTraining
import Testing

@Suite struct SpeedPerturbationTests {
    func tone(hertz: Double, seconds: Double = 1) -> [Float] { ToneMeasure.tone(hertz: hertz, seconds: seconds) }
    func amplitude(of signal: [Float], at hertz: Double) -> Double { ToneMeasure.amplitude(of: signal, at: hertz) }

    @Test func lengthAndPitchFollowTheSpeed() {
        for speed in [0.88, 1.12] {
            let played = SpeedPerturbation(speed: speed).apply(tone(hertz: 1_000))
            #expect(played.count == Int((16_000 / speed).rounded()))
            // 1 kHz played `speed` times faster is a tone at speed kHz, at the same level.
            #expect(abs(amplitude(of: played, at: 1_000 * speed) - 0.5) < 0.005, "speed \(speed)")
            #expect(amplitude(of: played, at: 1_000) < 0.01)
        }
    }

    /// Flat (±0.1 dB) wherever the features look (up to the top mel band, 7 kHz) when played
    /// faster: keyword windows must not lose a band that negative audio has. Slowed down,
    /// nothing lies above 8 kHz × speed whatever the filter; up to 85 % of that it is flat.
    @Test(arguments: [0.88, 0.95, 1.05, 1.12])
    func thePassbandIsFlatUpToTheTopMelBand(speed: Double) {
        let perturbation = SpeedPerturbation(speed: speed)
        let top = min(7_000, 0.85 * 8_000 * speed)
        for outputHertz in [200.0, 2_000, 5_000, 6_000, top] {
            let gain = amplitude(of: perturbation.apply(tone(hertz: outputHertz / speed)), at: outputHertz) / 0.5
            #expect(abs(20 * log10(gain)) < 0.1, "speed \(speed), \(outputHertz) Hz: \(20 * log10(gain)) dB")
        }
    }

    /// Played faster, what lay just below the input's Nyquist frequency would fold back into the
    /// band; it is filtered out first.
    @Test func whatWouldFoldBackIsFilteredOut() {
        let played = SpeedPerturbation(speed: 1.12).apply(tone(hertz: 7_900))
        // 7.9 kHz × 1.12 = 8.848 kHz, which would alias to 16 − 8.848 = 7.152 kHz.
        let alias = amplitude(of: played, at: 16_000 - 7_900 * 1.12)
        #expect(20 * log10(alias / 0.5) < -60, "alias at \(20 * log10(alias / 0.5)) dB")
    }

    /// On real speech it agrees with libsamplerate's medium sinc converter, sample by sample,
    /// to within what their different band edges allow (3 % of the signal).
    @Test(arguments: [0.88, 1.12])
    func itAgreesWithLibsamplerateOnARealRecording(speed: Double) throws {
        let clip = try AudioFileReader.read(TestPaths.sharedData.appendingPathComponent("keywords/alexa/0.flac")).samples
        let ours = SpeedPerturbation(speed: speed).apply(clip)
        let theirs = try Resampler.convert(clip, from: 16_000 * speed, to: 16_000, quality: .medium)
        let count = min(ours.count, theirs.count)
        #expect(abs(ours.count - theirs.count) <= 1)
        var difference = 0.0, power = 0.0
        for n in 100..<(count - 100) {
            difference += Double(ours[n] - theirs[n]) * Double(ours[n] - theirs[n])
            power += Double(theirs[n]) * Double(theirs[n])
        }
        let decibels = 10 * log10(difference / power)
        #expect(decibels < -30, "difference from libsamplerate at speed \(speed): \(decibels) dB")
    }

    /// Outputs whose filter reads only silence are skipped: a clip padded with silence plays
    /// exactly as if a faint sample at either end made every output count.
    @Test(arguments: [0.88, 1.0001, 1.12])
    func skippingSilenceChangesNothing(speed: Double) {
        let clip = tone(hertz: 440, seconds: 0.3)
        let silence = [Float](repeating: 0, count: 12_000)
        var padded = silence + clip + silence
        let skipped = SpeedPerturbation(speed: speed).apply(padded)
        padded[0] = 1e-30
        padded[padded.count - 1] = 1e-30
        let computed = SpeedPerturbation(speed: speed).apply(padded)
        #expect(skipped.count == computed.count)
        #expect(zip(skipped, computed).allSatisfy { abs($0 - $1) <= 1e-25 }, "speed \(speed)")
        #expect(skipped.contains { $0 != 0 } && skipped.prefix(10_000).allSatisfy { $0 == 0 })
    }

    @Test func silenceStaysSilentAndShortInputsWork() {
        #expect(SpeedPerturbation(speed: 1.1).apply([]).isEmpty)
        let impulse: [Float] = [0, 0, 1, 0, 0]
        let played = SpeedPerturbation(speed: 0.9).apply(impulse)
        #expect(played.count == 6)
        #expect(played.allSatisfy { $0.isFinite })
        #expect(SpeedPerturbation(speed: 1.1).apply([Float](repeating: 0, count: 1_000)).allSatisfy { $0 == 0 })
    }
}
