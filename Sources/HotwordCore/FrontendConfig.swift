/// Every parameter of the feature frontend. It is stored in each model file, so a model
/// trained with other settings still gets exactly the features it was trained on.
///
/// The pipeline (Kaldi / whisper.cpp style): frames of `frameLength` samples every
/// `frameShift` samples → optional DC removal and pre-emphasis → window → |FFT|² →
/// mel filterbank → log(max(x, logFloor)) (or per-channel energy normalisation instead) →
/// optional DCT-II (MFCC) → optional streaming mean normalisation. `FeatureExtractor` documents each step's formula and docs/features.md
/// the choices behind the defaults (log-mel, 40 bands, 25 ms frames every 10 ms).
/// `validate()` (also run by `FeatureExtractor.init`) rejects configs it cannot run.
public struct FrontendConfig: Sendable, Hashable, Codable {
    /// Input sample rate in Hz; every model runs at 16 kHz.
    public var sampleRate: Int
    /// Analysis window length in samples (400 = 25 ms).
    public var frameLength: Int
    /// Hop between frames in samples (160 = 10 ms).
    public var frameShift: Int
    /// FFT length, a power of two ≥ `frameLength` (the frame is zero-padded).
    public var fftSize: Int
    /// Subtract each frame's mean before pre-emphasis (Kaldi's `remove_dc_offset`).
    public var removeDCOffset: Bool
    /// Pre-emphasis coefficient k in 0...1: y[n] = x[n] − k·x[n−1] within the frame, and
    /// y[0] = (1 − k)·x[0] (Kaldi); 0 turns it off.
    public var preEmphasis: Float
    /// Taper applied to each frame before the FFT (see `WindowFunction`).
    public var window: WindowFunction
    /// Number of triangular mel filters; each must contain at least one FFT bin.
    public var melBands: Int
    /// Lowest and highest filter edge in Hz: 0 ≤ lowFrequency < highFrequency ≤ sampleRate / 2.
    /// The default top edge, 7 kHz, stays inside the pass band of the live 44.1/48 kHz → 16 kHz
    /// resampler (flat to 7 kHz), so captured audio has the same spectrum as the 16 kHz
    /// recordings the models are trained on.
    public var lowFrequency: Float
    public var highFrequency: Float
    /// Where the filters sit and how they are shaped (see `MelScale`).
    public var melScale: MelScale
    /// Mel energies below this are clamped before the (natural) log, so silence gives a finite
    /// floor; a normal float > 0.
    public var logFloor: Float
    /// 0 gives log-mel features; n > 0 keeps the first n coefficients of an orthonormal DCT-II (MFCC).
    public var cepstralCoefficients: Int
    /// Optional streaming normalisation of the features (see `FeatureNormalisation`).
    public var normalisation: FeatureNormalisation
    /// A pretrained network on top of the log-mel features (`SpeechEmbedding`): the features are
    /// then its embeddings, one every `outputFrameShift` samples. The settings above must be
    /// `SpeechEmbedding.melFrontend`'s. Model files store its weights beside the layers'
    /// (docs/model-format.md), not in this JSON.
    public var embedding: SpeechEmbedding? = nil

    private enum CodingKeys: String, CodingKey {
        case sampleRate, frameLength, frameShift, fftSize, removeDCOffset, preEmphasis, window, melBands,
             lowFrequency, highFrequency, melScale, logFloor, cepstralCoefficients, normalisation
    }

    public init(
        sampleRate: Int = 16_000, frameLength: Int = 400, frameShift: Int = 160, fftSize: Int = 512,
        removeDCOffset: Bool = true, preEmphasis: Float = 0.97, window: WindowFunction = .hann,
        melBands: Int = 40, lowFrequency: Float = 20, highFrequency: Float = 7_000,
        melScale: MelScale = .htk, logFloor: Float = 1e-6, cepstralCoefficients: Int = 0,
        normalisation: FeatureNormalisation = .none
    ) {
        self.sampleRate = sampleRate
        self.frameLength = frameLength
        self.frameShift = frameShift
        self.fftSize = fftSize
        self.removeDCOffset = removeDCOffset
        self.preEmphasis = preEmphasis
        self.window = window
        self.melBands = melBands
        self.lowFrequency = lowFrequency
        self.highFrequency = highFrequency
        self.melScale = melScale
        self.logFloor = logFloor
        self.cepstralCoefficients = cepstralCoefficients
        self.normalisation = normalisation
    }

    /// Values per feature frame.
    public var featureCount: Int { embedding?.outputs ?? (cepstralCoefficients > 0 ? cepstralCoefficients : melBands) }

    /// Samples between feature frames: `frameShift`, or an embedding's hop.
    public var outputFrameShift: Int { embedding.map { $0.hopFrames * frameShift } ?? frameShift }

    /// The samples a fresh stream needs before its first feature frame: `frameLength`, or for an
    /// embedding the log-mel frames up to the end of the first whole group holding a full window.
    public var outputFrameLength: Int {
        guard let embedding else { return frameLength }
        let groups = (embedding.windowFrames + embedding.hopFrames - 1) / embedding.hopFrames
        return (groups * embedding.hopFrames - 1) * frameShift + frameLength
    }

    /// These settings without the embedding: what the spectral stage computes.
    public var spectral: FrontendConfig {
        var config = self
        config.embedding = nil
        return config
    }
}

public enum WindowFunction: String, Sendable, Hashable, Codable, CaseIterable {
    /// 0.5 − 0.5·cos(2πn/(N−1))
    case hann
    /// 0.5 − 0.5·cos(2πn/N): one period of a window N + 1 long (torch's and librosa's default;
    /// the speech embedding's features use it)
    case hannPeriodic
    /// 0.54 − 0.46·cos(2πn/(N−1))
    case hamming
    /// Kaldi's default: hann^0.85
    case povey
    /// No window.
    case rectangular
}

public enum MelScale: String, Sendable, Hashable, Codable, CaseIterable {
    /// mel = 2595·log10(1 + f/700) (HTK, Kaldi). Filters are triangles linear in mel with
    /// peak 1, as in HTK and Kaldi.
    case htk
    /// Slaney's Auditory Toolbox: linear below 1 kHz, logarithmic above (librosa's default).
    /// Filters are triangles linear in Hz, area-normalised (height 2 / width in Hz), as
    /// librosa's `filters.mel` with its default `norm="slaney"` (whisper's filterbank).
    case slaney
}

public enum FeatureNormalisation: Sendable, Hashable, Codable {
    case none
    /// Subtract a running per-coefficient mean with an exponential time constant in seconds
    /// (streaming cepstral mean normalisation); the mean starts at zero. Per frame,
    /// μ ← μ + α·(f − μ) with α = 1 − exp(−frameShift / (sampleRate·τ)), then f ← f − μ: the
    /// updated mean is subtracted, so the current frame counts towards its own mean.
    case runningMean(timeConstant: Float)
    /// Per-channel energy normalisation (PCEN; Wang et al., "Trainable frontend for robust and
    /// far-field keyword spotting", ICASSP 2017) *instead of* the logarithm: each band's energy
    /// is divided by a power of its own smoothed past (an automatic gain control that cancels
    /// stationary noise and loudness) and then root-compressed. Per frame and band,
    /// M ← M + s·(E − M) with s = 1 − exp(−frameShift / (sampleRate·τ)) and M starting at the
    /// first frame's E, then P = (E / (ε + M)^gain + bias)^root − bias^root.
    /// `perChannelEnergyDefaults` holds the published values.
    case perChannelEnergy(timeConstant: Float, gain: Float, bias: Float, root: Float, floor: Float)

    /// PCEN with the values of Wang et al. and librosa: τ = 0.4 s, gain α = 0.98, bias δ = 2,
    /// root r = 0.5, floor ε = 1e-6.
    public static let perChannelEnergyDefaults = FeatureNormalisation.perChannelEnergy(
        timeConstant: 0.4, gain: 0.98, bias: 2, root: 0.5, floor: 1e-6)
}
