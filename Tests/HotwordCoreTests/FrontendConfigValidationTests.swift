import HotwordCore
import Testing

@Suite struct FrontendConfigValidationTests {
    static let badConfigs: [(FrontendConfig, FrontendConfigError)] = [
        (FrontendConfig(sampleRate: 0), .sampleRateOutOfRange(0)),
        // Bounds that keep a corrupt model file from overflowing sizes or asking for absurd memory (found by fuzzing).
        (FrontendConfig(sampleRate: 1 << 62), .sampleRateOutOfRange(1 << 62)),
        (FrontendConfig(frameShift: 1 << 62), .frameShiftOutOfRange(1 << 62)),
        (FrontendConfig(melBands: 1_000_000_000), .melBandsOutOfRange(1_000_000_000, fftSize: 512)),
        (FrontendConfig(melBands: .max), .melBandsOutOfRange(.max, fftSize: 512)),
        (FrontendConfig(frameLength: 1, fftSize: 2), .frameLengthTooShort(1)),
        (FrontendConfig(frameShift: 0), .frameShiftOutOfRange(0)),
        (FrontendConfig(frameShift: -160), .frameShiftOutOfRange(-160)),
        (FrontendConfig(fftSize: 500), .fftSizeNotPowerOfTwo(500)),
        (FrontendConfig(fftSize: 0), .fftSizeNotPowerOfTwo(0)),
        (FrontendConfig(fftSize: 256), .fftSizeOutOfRange(256, frameLength: 400)),
        (FrontendConfig(frameLength: 100_000, fftSize: 1 << 17), .fftSizeOutOfRange(1 << 17, frameLength: 100_000)),
        (FrontendConfig(preEmphasis: -0.1), .preEmphasisOutOfRange(-0.1)),
        (FrontendConfig(preEmphasis: 1.5), .preEmphasisOutOfRange(1.5)),
        (FrontendConfig(melBands: 0), .melBandsOutOfRange(0, fftSize: 512)),
        (FrontendConfig(lowFrequency: -20), .lowFrequencyOutOfRange(-20, nyquist: 8_000)),
        (FrontendConfig(lowFrequency: 8_000), .lowFrequencyOutOfRange(8_000, nyquist: 8_000)),
        (FrontendConfig(highFrequency: 0), .highFrequencyOutOfRange(0, nyquist: 8_000)),
        (FrontendConfig(highFrequency: 8_001), .highFrequencyOutOfRange(8_001, nyquist: 8_000)),
        (FrontendConfig(lowFrequency: 4_000, highFrequency: 3_000),
         .frequencyRangeEmpty(lowFrequency: 4_000, highFrequency: 3_000)),
        (FrontendConfig(cepstralCoefficients: 41), .cepstralCoefficientsOutOfRange(41, melBands: 40)),
        (FrontendConfig(cepstralCoefficients: -1), .cepstralCoefficientsOutOfRange(-1, melBands: 40)),
        (FrontendConfig(logFloor: 0), .logFloorNotPositive(0)),
        (FrontendConfig(logFloor: -1e-6), .logFloorNotPositive(-1e-6)),
        (FrontendConfig(logFloor: .infinity), .logFloorNotPositive(.infinity)),
        (FrontendConfig(logFloor: .leastNormalMagnitude / 2), .logFloorNotPositive(.leastNormalMagnitude / 2)),
        (FrontendConfig(normalisation: .runningMean(timeConstant: 0)), .timeConstantNotPositive(0)),
        (FrontendConfig(normalisation: .runningMean(timeConstant: -3)), .timeConstantNotPositive(-3)),
        (FrontendConfig(normalisation: .perChannelEnergy(timeConstant: 0, gain: 0.98, bias: 2, root: 0.5, floor: 1e-6)),
         .perChannelEnergyParameterOutOfRange(parameter: "timeConstant", value: 0, expected: "a finite time constant > 0 s")),
        (FrontendConfig(normalisation: .perChannelEnergy(timeConstant: 0.4, gain: 1.5, bias: 2, root: 0.5, floor: 1e-6)),
         .perChannelEnergyParameterOutOfRange(parameter: "gain", value: 1.5, expected: "an exponent in 0...1")),
        (FrontendConfig(normalisation: .perChannelEnergy(timeConstant: 0.4, gain: 0.98, bias: -1, root: 0.5, floor: 1e-6)),
         .perChannelEnergyParameterOutOfRange(parameter: "bias", value: -1, expected: "a finite bias ≥ 0")),
        (FrontendConfig(normalisation: .perChannelEnergy(timeConstant: 0.4, gain: 0.98, bias: 2, root: 0, floor: 1e-6)),
         .perChannelEnergyParameterOutOfRange(parameter: "root", value: 0, expected: "an exponent in (0, 1]")),
        (FrontendConfig(normalisation: .perChannelEnergy(timeConstant: 0.4, gain: 0.98, bias: 2, root: 0.5, floor: 0)),
         .perChannelEnergyParameterOutOfRange(parameter: "floor", value: 0,
                                             expected: "a finite value ≥ \(Float.leastNormalMagnitude)")),
    ]

    @Test(arguments: badConfigs)
    func badConfigIsRejectedWithTheRightError(config: FrontendConfig, expected: FrontendConfigError) {
        #expect(throws: expected) { try FeatureExtractor(config: config) }
        #expect(throws: expected) { try config.validate() }
        #expect(expected.description.contains(expected.field))
    }

    /// NaN never compares equal, so these are checked by field.
    @Test(arguments: [
        (FrontendConfig(preEmphasis: .nan), "preEmphasis"),
        (FrontendConfig(lowFrequency: .nan), "lowFrequency"),
        (FrontendConfig(highFrequency: .nan), "highFrequency"),
        (FrontendConfig(logFloor: .nan), "logFloor"),
        (FrontendConfig(normalisation: .runningMean(timeConstant: .nan)), "normalisation.runningMean.timeConstant"),
        (FrontendConfig(normalisation: .perChannelEnergy(timeConstant: 0.4, gain: .nan, bias: 2, root: 0.5, floor: 1e-6)),
         "normalisation.perChannelEnergy.gain"),
        (FrontendConfig(normalisation: .perChannelEnergy(timeConstant: 0.4, gain: 0.98, bias: 2, root: .nan, floor: 1e-6)),
         "normalisation.perChannelEnergy.root"),
    ])
    func notANumberIsRejected(config: FrontendConfig, field: String) {
        #expect { try config.validate() } throws: { ($0 as? FrontendConfigError)?.field == field }
    }

    /// 128 bands on a 512-point FFT leave the lowest filters narrower than the 31.25 Hz bin spacing.
    @Test func melBandWithoutBinsIsRejected() throws {
        let config = FrontendConfig(melBands: 128, lowFrequency: 0)
        let error = try #require(throws: FrontendConfigError.self) { try FeatureExtractor(config: config) }
        guard case .melBandWithoutBins(let band, let lowEdge, let highEdge, let binSpacing) = error else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(binSpacing == 31.25)
        // No multiple of the bin spacing lies strictly between the band's edges.
        #expect((lowEdge / binSpacing).rounded(.down) + 1 >= highEdge / binSpacing, "band \(band)")
        #expect(error.description.contains("melBands"))
    }

    @Test func messageNamesFieldValueAndExpectation() {
        #expect(FrontendConfigError.fftSizeNotPowerOfTwo(500).description
            == "invalid frontend config: fftSize = 500; expected a power of two")
        #expect(FrontendConfigError.highFrequencyOutOfRange(9_000, nyquist: 8_000).description
            == "invalid frontend config: highFrequency = 9000.0 Hz; expected a frequency in (0, 8000.0] Hz (Nyquist = sampleRate / 2)")
    }

    @Test(arguments: [
        FrontendConfig(), FrontendConfig(lowFrequency: 0, highFrequency: 8_000, melScale: .slaney),
        FrontendConfig(sampleRate: 8_000, frameLength: 200, frameShift: 80, fftSize: 256, melBands: 23,
                       highFrequency: 4_000, cepstralCoefficients: 23, normalisation: .runningMean(timeConstant: 3)),
    ])
    func goodConfigsAreAccepted(config: FrontendConfig) throws {
        try config.validate()
        #expect(try FeatureExtractor(config: config).featureCount == config.featureCount)
    }
}
