extension FrontendConfig {
    /// The largest FFT the frontend accepts (4 s at 16 kHz); it bounds the memory a
    /// corrupted model file can make us allocate.
    public static let maximumFFTSize = 1 << 16

    /// Throws the first problem that would keep `FeatureExtractor` from running with this
    /// config, including mel bands too narrow to contain an FFT bin.
    public func validate() throws(FrontendConfigError) {
        _ = try MelFilterbank(self)
    }

    /// Frames a stream of `sampleCount` samples yields: frame t needs samples up to
    /// t·frameShift + frameLength (Kaldi's `snip_edges`: no partial frames, no padding).
    public func frameCount(sampleCount: Int) -> Int {
        sampleCount < frameLength ? 0 : 1 + (sampleCount - frameLength) / frameShift
    }

    /// Half the sample rate: the highest frequency the spectrum holds.
    var nyquistFrequency: Double { Double(sampleRate) / 2 }

    /// Every check that needs no mel filterbank; `MelFilterbank.init` runs it first.
    func validateScalarParameters() throws(FrontendConfigError) {
        guard sampleRate > 0 else { throw .sampleRateNotPositive(sampleRate) }
        guard frameLength >= 2 else { throw .frameLengthTooShort(frameLength) }
        guard frameShift >= 1 else { throw .frameShiftNotPositive(frameShift) }
        guard fftSize > 0, fftSize & (fftSize - 1) == 0 else { throw .fftSizeNotPowerOfTwo(fftSize) }
        guard fftSize >= frameLength, fftSize <= Self.maximumFFTSize else {
            throw .fftSizeOutOfRange(fftSize, frameLength: frameLength)
        }
        guard preEmphasis >= 0, preEmphasis <= 1 else { throw .preEmphasisOutOfRange(preEmphasis) }
        guard melBands >= 1 else { throw .melBandsNotPositive(melBands) }
        let nyquist = Float(nyquistFrequency)
        guard lowFrequency >= 0, lowFrequency < nyquist else {
            throw .lowFrequencyOutOfRange(lowFrequency, nyquist: nyquist)
        }
        guard highFrequency > 0, highFrequency <= nyquist else {
            throw .highFrequencyOutOfRange(highFrequency, nyquist: nyquist)
        }
        guard lowFrequency < highFrequency else {
            throw .frequencyRangeEmpty(lowFrequency: lowFrequency, highFrequency: highFrequency)
        }
        guard cepstralCoefficients >= 0, cepstralCoefficients <= melBands else {
            throw .cepstralCoefficientsOutOfRange(cepstralCoefficients, melBands: melBands)
        }
        // Normal, so the vectorised logarithm (which reads the float's exponent field) applies.
        guard logFloor.isFinite, logFloor >= .leastNormalMagnitude else { throw .logFloorNotPositive(logFloor) }
        if case .runningMean(let timeConstant) = normalisation {
            guard timeConstant.isFinite, timeConstant > 0 else {
                throw .timeConstantNotPositive(timeConstant)
            }
        }
    }
}
