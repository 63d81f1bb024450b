import Foundation

extension FrontendConfig {
    /// The largest FFT the frontend accepts (4 s at 16 kHz); it bounds the memory a
    /// corrupted model file can make us allocate.
    public static let maximumFFTSize = 1 << 16
    /// The highest sample rate accepted (as for audio files); with the FFT bound it keeps every
    /// buffer the detector sizes from a model's frontend small.
    public static let maximumSampleRate = 384_000

    /// Throws the first problem that would keep `FeatureExtractor` from running with this
    /// config, including mel bands too narrow to contain an FFT bin.
    public func validate() throws(FrontendConfigError) {
        _ = try MelFilterbank(self)
        if let embedding {
            guard spectral == SpeechEmbedding.melFrontend else {
                throw .speechEmbeddingInvalid(reason: "log-mel settings other than SpeechEmbedding.melFrontend's")
            }
            do { try embedding.validate() } catch { throw .speechEmbeddingInvalid(reason: error.description) }
        }
    }

    /// Feature frames a stream of `sampleCount` samples yields: frame t needs samples up to
    /// t·outputFrameShift + outputFrameLength (Kaldi's `snip_edges`: no partial frames, no padding).
    public func frameCount(sampleCount: Int) -> Int {
        sampleCount < outputFrameLength ? 0 : 1 + (sampleCount - outputFrameLength) / outputFrameShift
    }

    /// How far back the features depend on the audio beyond their own frame: nothing for
    /// frame-by-frame features, five time constants for the streaming normalisations (after
    /// which under 1 % of the earlier audio's weight remains). Training computes features with
    /// this much audio before each window, so it sees what the daemon's running stream sees.
    public var memorySeconds: Double {
        switch normalisation {
        case .none: 0
        case .runningMean(let timeConstant), .perChannelEnergy(let timeConstant, _, _, _, _): 5 * Double(timeConstant)
        }
    }

    /// The per-frame weight of a new value in an exponential average with time constant τ seconds.
    func smoothing(timeConstant: Float) -> Float {
        let secondsPerFrame = Double(frameShift) / Double(sampleRate)
        return Float(1 - exp(-secondsPerFrame / Double(timeConstant)))
    }

    /// Half the sample rate: the highest frequency the spectrum holds.
    var nyquistFrequency: Double { Double(sampleRate) / 2 }

    /// Every check that needs no mel filterbank; `MelFilterbank.init` runs it first.
    func validateScalarParameters() throws(FrontendConfigError) {
        guard (1...Self.maximumSampleRate).contains(sampleRate) else { throw .sampleRateOutOfRange(sampleRate) }
        guard frameLength >= 2 else { throw .frameLengthTooShort(frameLength) }
        guard (1...Self.maximumFFTSize).contains(frameShift) else { throw .frameShiftOutOfRange(frameShift) }
        guard fftSize > 0, fftSize & (fftSize - 1) == 0 else { throw .fftSizeNotPowerOfTwo(fftSize) }
        guard fftSize >= frameLength, fftSize <= Self.maximumFFTSize else {
            throw .fftSizeOutOfRange(fftSize, frameLength: frameLength)
        }
        guard preEmphasis >= 0, preEmphasis <= 1 else { throw .preEmphasisOutOfRange(preEmphasis) }
        // Each band needs an FFT bin of its own, so more bands than bins cannot work.
        guard (1...(fftSize / 2 + 1)).contains(melBands) else { throw .melBandsOutOfRange(melBands, fftSize: fftSize) }
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
        switch normalisation {
        case .none:
            break
        case .runningMean(let timeConstant):
            guard timeConstant.isFinite, timeConstant > 0 else {
                throw .timeConstantNotPositive(timeConstant)
            }
        case .perChannelEnergy(let timeConstant, let gain, let bias, let root, let floor):
            let checks: [(String, Float, Bool, String)] = [
                ("timeConstant", timeConstant, timeConstant.isFinite && timeConstant > 0, "a finite time constant > 0 s"),
                ("gain", gain, gain >= 0 && gain <= 1, "an exponent in 0...1"),
                ("bias", bias, bias.isFinite && bias >= 0, "a finite bias ≥ 0"),
                ("root", root, root > 0 && root <= 1, "an exponent in (0, 1]"),
                // Normal, for the same reason as logFloor: the divisor's logarithm is taken.
                ("floor", floor, floor.isFinite && floor >= .leastNormalMagnitude, "a finite value ≥ \(Float.leastNormalMagnitude)"),
            ]
            if let (parameter, value, _, expected) = checks.first(where: { !$0.2 }) {
                throw .perChannelEnergyParameterOutOfRange(parameter: parameter, value: value, expected: expected)
            }
        }
    }
}
