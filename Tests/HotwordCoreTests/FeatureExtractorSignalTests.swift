import Foundation
import HotwordCore
import Testing

/// What known signals must look like in feature space.
@Suite struct FeatureExtractorSignalTests {
    /// A sine at band m's centre frequency (edge m + 1) puts most energy into band m.
    @Test(arguments: MelScale.allCases, [3, 17, 30])
    func sineEnergyLandsInItsMelBand(scale: MelScale, band: Int) throws {
        let config = FrontendConfig(melScale: scale)
        let centre = ReferenceFrontend(config: config).edgeFrequencies()[band + 1]
        let frames = try FeatureExtractor(config: config).frames(of: TestSignal.sine(hz: centre, count: 4_000))
        #expect(frames.frameCount == 23)
        for t in 0..<frames.frameCount {
            let row = Array(frames[frame: t])
            let loudest = row.indices.max { row[$0] < row[$1] }!
            #expect(loudest == band, "frame \(t): loudest band \(loudest), expected \(band) (\(centre) Hz)")
            // The neighbours see the sine only on their slopes; far bands see only leakage.
            #expect(row[band] - row[band - 1] > 0.5 && row[band] - row[band + 1] > 0.5)
            #expect(row[band] - row[band > 20 ? 0 : 39] > 10)
        }
    }

    @Test(arguments: [WindowFunction.hann, .rectangular], [true, false])
    func silenceGivesLogFloor(window: WindowFunction, removeDCOffset: Bool) throws {
        let config = FrontendConfig(removeDCOffset: removeDCOffset, window: window, logFloor: 1e-7)
        let frames = try FeatureExtractor(config: config).frames(of: [Float](repeating: 0, count: 1_000))
        #expect(frames.frameCount == 4)
        #expect(Set(frames.values).count == 1)
        #expect(abs(frames.values[0] - log(Float(1e-7))) < 1e-6)
    }

    @Test func silenceGivesConstantMFCC() throws {
        let config = FrontendConfig(cepstralCoefficients: 13)
        let frames = try FeatureExtractor(config: config).frames(of: [Float](repeating: 0, count: 1_000))
        // The DCT of a constant vector: only c0 = √M·log(floor) is non-zero.
        let c0 = Float(40).squareRoot() * log(config.logFloor)
        for t in 0..<frames.frameCount {
            #expect(abs(frames[frame: t, feature: 0] - c0) < 1e-4 * abs(c0))
            #expect(frames[frame: t].dropFirst().allSatisfy { abs($0) < 1e-4 })
        }
    }

    /// A constant offset vanishes with DC removal: the frame is silence.
    @Test func dcOffsetRemovalTurnsAConstantIntoSilence() throws {
        let frames = try FeatureExtractor(config: FrontendConfig()).frames(of: [Float](repeating: 0.25, count: 800))
        #expect(frames.values.allSatisfy { abs($0 - log(FrontendConfig().logFloor)) < 1e-6 })
    }

    /// On stationary noise the normalised features settle around zero mean, while the raw ones do not.
    @Test(arguments: [0, 13])
    func runningMeanConvergesToZeroMean(cepstralCoefficients: Int) throws {
        let signal = TestSignal.whiteNoise(amplitude: 0.1, count: 6 * 16_000, seed: 3)
        let raw = try FeatureExtractor(config: FrontendConfig(cepstralCoefficients: cepstralCoefficients))
            .frames(of: signal)
        let normalised = try FeatureExtractor(config: FrontendConfig(
            cepstralCoefficients: cepstralCoefficients, normalisation: .runningMean(timeConstant: 0.5)
        )).frames(of: signal)

        let lastTwoSeconds = (raw.frameCount - 200)..<raw.frameCount
        func mean(_ frames: FeatureMatrix, _ i: Int) -> Float {
            lastTwoSeconds.map { frames[frame: $0, feature: i] }.reduce(0, +) / Float(lastTwoSeconds.count)
        }
        for i in 0..<raw.featureCount {
            #expect(abs(mean(normalised, i)) < 0.1, "coefficient \(i): mean \(mean(normalised, i))")
        }
        #expect(abs(mean(raw, 0)) > 1)
    }

    /// The updated mean is subtracted: frame 0 (mean starting at 0) becomes (1 − α)·f_0, then
    /// μ_t = μ_{t−1} + α·(f_t − μ_{t−1}) and f_t − μ_t, α = 1 − exp(−frameShift / (sampleRate·τ)).
    @Test func runningMeanFollowsExponentialAverage() throws {
        let tau: Float = 0.3
        let signal = TestSignal.mixture(count: 8_000)
        let raw = try FeatureExtractor(config: FrontendConfig()).frames(of: signal)
        let normalised = try FeatureExtractor(config: FrontendConfig(normalisation: .runningMean(timeConstant: tau)))
            .frames(of: signal)
        let alpha = 1 - exp(-160 / (16_000 * Double(tau)))
        var mean = [Double](repeating: 0, count: raw.featureCount)
        for t in 0..<raw.frameCount {
            for i in 0..<raw.featureCount {
                let f = Double(raw[frame: t, feature: i])
                mean[i] += alpha * (f - mean[i])
                #expect(abs(Double(normalised[frame: t, feature: i]) - (f - mean[i])) < 1e-4)
            }
        }
        #expect(abs(Double(normalised[frame: 0, feature: 5]) - (1 - alpha) * Double(raw[frame: 0, feature: 5])) < 1e-5)
    }

    /// PCEN divides each band by a power (0.98) of its own recent level: stationary noise 20 dB
    /// louder barely moves the features, where log-mel moves by ln(10²) ≈ 4.6 in every band.
    @Test func perChannelEnergyCancelsTheLevelOfStationaryNoise() throws {
        func settledMeans(amplitude: Float, normalisation: FeatureNormalisation) throws -> [Float] {
            let noise = TestSignal.whiteNoise(amplitude: amplitude, count: 4 * 16_000, seed: 9)
            let frames = try FeatureExtractor(config: FrontendConfig(normalisation: normalisation)).frames(of: noise)
            let lastSecond = (frames.frameCount - 100)..<frames.frameCount
            return (0..<frames.featureCount).map { i in
                lastSecond.map { frames[frame: $0, feature: i] }.reduce(0, +) / Float(lastSecond.count)
            }
        }
        let (quietPCEN, loudPCEN) = (try settledMeans(amplitude: 0.03, normalisation: .perChannelEnergyDefaults),
                                     try settledMeans(amplitude: 0.3, normalisation: .perChannelEnergyDefaults))
        let (quietLog, loudLog) = (try settledMeans(amplitude: 0.03, normalisation: .none),
                                   try settledMeans(amplitude: 0.3, normalisation: .none))
        for band in quietPCEN.indices {
            #expect(abs(loudPCEN[band] - quietPCEN[band]) < 0.05, "band \(band): \(quietPCEN[band]) → \(loudPCEN[band])")
            #expect(abs(loudLog[band] - quietLog[band] - 4.61) < 0.2, "band \(band)")
        }
    }

    /// …while a sound that starts over the noise stands out at its onset and fades as the
    /// band's level catches up with it (τ = 0.4 s).
    @Test func perChannelEnergyMarksOnsetsAndAdapts() throws {
        let noise = TestSignal.whiteNoise(amplitude: 0.01, count: 5 * 16_000, seed: 4)
        let tone = TestSignal.sine(hz: 1_000, amplitude: 0.1, count: 3 * 16_000)
        var signal = noise
        for i in tone.indices { signal[2 * 16_000 + i] += tone[i] }
        let frames = try FeatureExtractor(config: FrontendConfig(normalisation: .perChannelEnergyDefaults)).frames(of: signal)
        let logMel = try FeatureExtractor(config: FrontendConfig()).frames(of: signal)
        let band = (0..<frames.featureCount).max { logMel[frame: 300, feature: $0] < logMel[frame: 300, feature: $1] }!
        // The tone starts at sample 32 000: frame 200 is the first to hold only tone and noise.
        let before = frames[frame: 190, feature: band], onset = frames[frame: 200, feature: band]
        let settled = frames[frame: 480, feature: band]
        #expect(onset > 10 * before, "before \(before), onset \(onset)")
        #expect(onset > 5 * settled, "onset \(onset), two and a half seconds later \(settled)")
    }
}
