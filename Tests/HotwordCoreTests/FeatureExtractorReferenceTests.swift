import Foundation
import HotwordCore
import Testing

/// The extractor (Float, FFTW) against `ReferenceFrontend` (Double, direct DFT, dense mel matrix).
@Suite struct FeatureExtractorReferenceTests {
    /// Largest allowed |extractor − reference| on log-mel and MFCC values (natural log units).
    static let tolerance = 1e-3

    static let configs: [FrontendConfig] = [
        FrontendConfig(),
        FrontendConfig(window: .hamming, melScale: .slaney),
        FrontendConfig(preEmphasis: 0.5, window: .povey, lowFrequency: 0, highFrequency: 8_000),
        FrontendConfig(fftSize: 1_024, removeDCOffset: false, preEmphasis: 0, window: .rectangular,
                       melBands: 64, lowFrequency: 60),
        FrontendConfig(frameLength: 512, frameShift: 128, melBands: 23, melScale: .slaney,
                       cepstralCoefficients: 13),
        FrontendConfig(cepstralCoefficients: 13, normalisation: .runningMean(timeConstant: 0.05)),
        FrontendConfig(normalisation: .perChannelEnergyDefaults),
        FrontendConfig(melBands: 23, cepstralCoefficients: 13,
                       normalisation: .perChannelEnergy(timeConstant: 0.05, gain: 0.8, bias: 0.5, root: 0.25, floor: 1e-3)),
    ]

    @Test(arguments: configs)
    func matchesDoublePrecisionReference(config: FrontendConfig) throws {
        let signal = TestSignal.mixture(count: 3_200)
        let frames = try FeatureExtractor(config: config).frames(of: signal)
        let reference = ReferenceFrontend(config: config).features(of: signal)

        #expect(frames.frameCount == reference.count)
        var largestError = 0.0
        for (t, expected) in reference.enumerated() {
            for (i, value) in expected.enumerated() {
                largestError = max(largestError, abs(Double(frames[frame: t, feature: i]) - value))
            }
        }
        #expect(largestError <= Self.tolerance, "max abs error \(largestError)")
    }

    @Test func mfccIsOrthonormalDCTOfLogMel() throws {
        let signal = TestSignal.mixture(count: 3_200, seed: 7)
        let logMel = try FeatureExtractor(config: FrontendConfig()).frames(of: signal)
        let melBands = logMel.featureCount
        let fullMFCC = try FeatureExtractor(config: FrontendConfig(cepstralCoefficients: melBands)).frames(of: signal)
        let mfcc13 = try FeatureExtractor(config: FrontendConfig(cepstralCoefficients: 13)).frames(of: signal)

        for t in 0..<logMel.frameCount {
            let expected = ReferenceFrontend.orthonormalDCT(logMel[frame: t].map(Double.init), keep: melBands)
            for q in 0..<melBands {
                #expect(abs(Double(fullMFCC[frame: t, feature: q]) - expected[q]) <= 1e-4)
            }
            #expect(Array(mfcc13[frame: t]) == Array(fullMFCC[frame: t].prefix(13)))
            // Orthonormal: the DCT keeps the vector's length (Parseval).
            let energy = logMel[frame: t].map { Double($0 * $0) }.reduce(0, +)
            let cepstralEnergy = fullMFCC[frame: t].map { Double($0 * $0) }.reduce(0, +)
            #expect(abs(cepstralEnergy - energy) <= 1e-5 * energy)
        }
    }
}
