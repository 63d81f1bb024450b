/// A `FrontendConfig` the frontend cannot run with. Each case carries the offending value
/// (and whatever it was compared against) so the message names the field, the value and
/// what was expected.
public enum FrontendConfigError: Error, Equatable, Sendable, CustomStringConvertible {
    case sampleRateOutOfRange(Int)
    case frameLengthTooShort(Int)
    case frameShiftOutOfRange(Int)
    case fftSizeNotPowerOfTwo(Int)
    /// The FFT must hold a whole frame and stay below `FrontendConfig.maximumFFTSize`.
    case fftSizeOutOfRange(Int, frameLength: Int)
    case preEmphasisOutOfRange(Float)
    case melBandsOutOfRange(Int, fftSize: Int)
    case lowFrequencyOutOfRange(Float, nyquist: Float)
    case highFrequencyOutOfRange(Float, nyquist: Float)
    case frequencyRangeEmpty(lowFrequency: Float, highFrequency: Float)
    /// A filter so narrow that no FFT bin lies strictly inside it: its feature would be
    /// the constant log(logFloor).
    case melBandWithoutBins(band: Int, lowEdge: Float, highEdge: Float, binSpacing: Float)
    case cepstralCoefficientsOutOfRange(Int, melBands: Int)
    case logFloorNotPositive(Float)
    case timeConstantNotPositive(Float)
    /// A PCEN parameter (`timeConstant`, `gain`, `bias`, `root` or `floor`) outside its range.
    case perChannelEnergyParameterOutOfRange(parameter: String, value: Float, expected: String)
    /// A speech embedding that is not runnable, or log-mel settings other than the ones it was trained on.
    case speechEmbeddingInvalid(reason: String)

    /// The `FrontendConfig` property at fault.
    public var field: String {
        switch self {
        case .sampleRateOutOfRange: "sampleRate"
        case .frameLengthTooShort: "frameLength"
        case .frameShiftOutOfRange: "frameShift"
        case .fftSizeNotPowerOfTwo, .fftSizeOutOfRange: "fftSize"
        case .preEmphasisOutOfRange: "preEmphasis"
        case .melBandsOutOfRange, .melBandWithoutBins: "melBands"
        case .lowFrequencyOutOfRange, .frequencyRangeEmpty: "lowFrequency"
        case .highFrequencyOutOfRange: "highFrequency"
        case .cepstralCoefficientsOutOfRange: "cepstralCoefficients"
        case .logFloorNotPositive: "logFloor"
        case .timeConstantNotPositive: "normalisation.runningMean.timeConstant"
        case .perChannelEnergyParameterOutOfRange(let parameter, _, _): "normalisation.perChannelEnergy.\(parameter)"
        case .speechEmbeddingInvalid: "embedding"
        }
    }

    public var description: String {
        let (value, expected): (String, String) = switch self {
        case .sampleRateOutOfRange(let rate):
            ("\(rate)", "a rate of 1 to \(FrontendConfig.maximumSampleRate) Hz")
        case .frameLengthTooShort(let length):
            ("\(length)", "at least 2 samples")
        case .frameShiftOutOfRange(let shift):
            ("\(shift)", "a hop of 1 to \(FrontendConfig.maximumFFTSize) samples")
        case .fftSizeNotPowerOfTwo(let size):
            ("\(size)", "a power of two")
        case .fftSizeOutOfRange(let size, let frameLength):
            ("\(size)", "frameLength (\(frameLength)) ≤ fftSize ≤ \(FrontendConfig.maximumFFTSize)")
        case .preEmphasisOutOfRange(let k):
            ("\(k)", "a coefficient in 0...1")
        case .melBandsOutOfRange(let bands, let fftSize):
            ("\(bands)", "1 to fftSize / 2 + 1 = \(fftSize / 2 + 1) bands (one FFT bin each at least)")
        case .lowFrequencyOutOfRange(let low, let nyquist):
            ("\(low) Hz", "a frequency in [0, \(nyquist)) Hz (Nyquist = sampleRate / 2)")
        case .highFrequencyOutOfRange(let high, let nyquist):
            ("\(high) Hz", "a frequency in (0, \(nyquist)] Hz (Nyquist = sampleRate / 2)")
        case .frequencyRangeEmpty(let low, let high):
            ("\(low) Hz", "below highFrequency = \(high) Hz")
        case .melBandWithoutBins(let band, let lowEdge, let highEdge, let binSpacing):
            ("band \(band) spanning \(lowEdge)–\(highEdge) Hz",
             "every band to contain an FFT bin (spacing \(binSpacing) Hz): use fewer melBands, "
                + "a larger fftSize or a wider frequency range")
        case .cepstralCoefficientsOutOfRange(let count, let melBands):
            ("\(count)", "0 (log-mel) or 1...melBands (\(melBands))")
        case .logFloorNotPositive(let floor):
            ("\(floor)", "a finite value ≥ \(Float.leastNormalMagnitude) (log(0) is −∞)")
        case .timeConstantNotPositive(let seconds):
            ("\(seconds) s", "a finite time constant > 0 s")
        case .perChannelEnergyParameterOutOfRange(_, let value, let expected):
            ("\(value)", expected)
        case .speechEmbeddingInvalid(let reason):
            (reason, "a valid speech embedding over SpeechEmbedding.melFrontend's log-mel features")
        }
        return "invalid frontend config: \(field) = \(value); expected \(expected)"
    }
}
