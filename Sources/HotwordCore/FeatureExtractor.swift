import Foundation

/// Turns a mono audio stream into feature frames — log-mel energies or MFCCs — exactly as a
/// `FrontendConfig` describes; the same config always gives the same features, in training
/// and in the daemon.
///
/// Frame t covers samples [t·S, t·S + N) of the stream (N = `frameLength`, S = `frameShift`,
/// no padding at either end) and is computed as:
/// 1. x[n] ← x[n] − mean(x)                                  if `removeDCOffset`
/// 2. x[n] ← x[n] − k·x[n−1] for n ≥ 1, x[0] ← (1 − k)·x[0]  k = `preEmphasis` (Kaldi's form)
/// 3. x[n] ← w[n]·x[n]                                       w = `window`, N coefficients
/// 4. X_j = Σ_{n<N} x[n]·e^(−2πijn/K), P_j = |X_j|², j = 0…K/2  K = `fftSize` (zero-padded)
/// 5. E_m = Σ_j H_m[j]·P_j                                    `melBands` triangular filters between
///                                                            `lowFrequency` and `highFrequency`
///                                                            on `melScale` (see `MelScale`)
/// 6. L_m = ln(max(E_m, `logFloor`))
/// 7. c_q = s_q·Σ_m L_m·cos(πq(2m+1)/(2M)), q < `cepstralCoefficients`, s_0 = √(1/M),
///    s_q = √(2/M) (orthonormal DCT-II)                      only if `cepstralCoefficients` > 0
/// 8. μ_t = μ_{t−1} + α·(f_t − μ_{t−1}), f_t ← f_t − μ_t      for `.runningMean(timeConstant: τ)`:
///    α = 1 − exp(−S / (sampleRate·τ)), μ_{−1} = 0. The *updated* mean is subtracted, so the
///    current frame counts towards its own mean (as in offline mean normalisation); the
///    result equals (1 − α)·(f_t − μ_{t−1}).
///
/// Streaming: pass samples in chunks of any size to `process(_:onFrame:)`; each frame is
/// delivered as soon as its last sample arrives. Frames depend only on the samples, never on
/// the chunking, so streaming and `frames(of:)` agree bit for bit.
///
/// Not thread-safe, by design: one instance per stream. It holds that stream's history and
/// running mean and works in buffers allocated once (nothing is allocated per frame). The
/// class is not `Sendable`, so the compiler keeps each instance in one isolation domain.
public final class FeatureExtractor {
    public let config: FrontendConfig
    /// Values per frame: `config.featureCount`.
    public let featureCount: Int
    /// Frames delivered since creation or the last `reset()`; the frame being delivered to
    /// `onFrame` is frame `framesProduced − 1` and starts at sample (framesProduced − 1)·frameShift.
    public private(set) var framesProduced = 0

    private let frameLength: Int
    private let frameShift: Int
    private let binCount: Int
    private let filterbank: MelFilterbank
    private let fft: RealFFT
    /// The window's N coefficients.
    private let window: UnsafeMutablePointer<Float>
    /// P_j, j = 0…K/2.
    private let power: UnsafeMutablePointer<Float>
    /// E_m, then L_m in place.
    private let logMel: UnsafeMutablePointer<Float>
    /// The orthonormal DCT-II, `cepstralCoefficients` × `melBands` row-major; empty for log-mel.
    private let dct: [Float]
    private let cepstra: UnsafeMutablePointer<Float>
    /// α of the running mean, nil without normalisation.
    private let meanSmoothing: Float?
    private let runningMean: UnsafeMutablePointer<Float>

    /// Samples not yet consumed by every frame that needs them; `nextFrameStart` indexes the
    /// first sample of the next frame and may lie beyond `historyCount` when frameShift > frameLength.
    private let history: UnsafeMutablePointer<Float>
    private let historyCapacity: Int
    private var historyCount = 0
    private var nextFrameStart = 0

    /// Samples the history holds beyond one frame: dead samples are shifted out only when it
    /// is full, once per ~historySlack / frameShift frames.
    private static let historySlack = 4_096

    public init(config: FrontendConfig) throws(FrontendConfigError) {
        filterbank = try MelFilterbank(config)
        self.config = config
        featureCount = config.featureCount
        frameLength = config.frameLength
        frameShift = config.frameShift
        binCount = config.fftSize / 2 + 1
        fft = RealFFT(size: config.fftSize)
        window = Self.allocate(config.window.coefficients(length: config.frameLength))
        power = Self.allocate(count: binCount)
        logMel = Self.allocate(count: config.melBands)
        dct = Self.orthonormalDCT(rows: config.cepstralCoefficients, columns: config.melBands)
        cepstra = Self.allocate(count: config.cepstralCoefficients)
        if case .runningMean(let timeConstant) = config.normalisation {
            let framesPerTimeConstant = Double(config.sampleRate) * Double(timeConstant) / Double(config.frameShift)
            meanSmoothing = Float(1 - exp(-1 / framesPerTimeConstant))
        } else {
            meanSmoothing = nil
        }
        runningMean = Self.allocate(count: featureCount)
        historyCapacity = config.frameLength + Self.historySlack
        history = Self.allocate(count: historyCapacity)
    }

    deinit {
        for buffer in [window, power, logMel, cepstra, runningMean, history] {
            buffer.deallocate()
        }
    }

    /// Forgets the stream: history, running mean and frame count start afresh.
    public func reset() {
        historyCount = 0
        nextFrameStart = 0
        framesProduced = 0
        runningMean.update(repeating: 0, count: featureCount)
    }

    /// Appends `samples` to the stream and calls `onFrame` with each frame this completes, in
    /// order. The frame's buffer is only valid during the call; `onFrame` must not call back
    /// into this extractor.
    public func process(_ samples: UnsafeBufferPointer<Float>, onFrame: (UnsafeBufferPointer<Float>) -> Void) {
        guard let source = samples.baseAddress else { return }
        var consumed = 0
        while consumed < samples.count {
            if historyCount == historyCapacity { discardConsumedHistory() }
            let count = min(historyCapacity - historyCount, samples.count - consumed)
            (history + historyCount).update(from: source + consumed, count: count)
            historyCount += count
            consumed += count
            while nextFrameStart + frameLength <= historyCount {
                let features = computeFeatures(frame: history + nextFrameStart)
                nextFrameStart += frameShift
                framesProduced += 1
                onFrame(features)
            }
        }
    }

    /// The features of a whole signal as one fresh stream: resets first, so earlier input has
    /// no influence (and the extractor is left at the end of `signal`).
    public func frames(of signal: [Float]) -> FeatureMatrix {
        reset()
        var values: [Float] = []
        values.reserveCapacity(config.frameCount(sampleCount: signal.count) * featureCount)
        signal.withUnsafeBufferPointer { samples in
            process(samples) { values.append(contentsOf: $0) }
        }
        return FeatureMatrix(featureCount: featureCount, values: values)
    }

    /// Drops the samples before the next frame, moving the rest to the front.
    private func discardConsumedHistory() {
        let dead = min(nextFrameStart, historyCount)
        history.update(from: history + dead, count: historyCount - dead)
        historyCount -= dead
        nextFrameStart -= dead
    }

    /// Steps 1–8 of the type's documentation for the N samples at `x`.
    private func computeFeatures(frame x: UnsafePointer<Float>) -> UnsafeBufferPointer<Float> {
        let n = frameLength
        let y = fft.input
        var mean: Float = 0
        if config.removeDCOffset {
            for i in 0..<n { mean += x[i] }
            mean /= Float(n)
        }
        for i in 0..<n { y[i] = x[i] - mean }
        let k = config.preEmphasis
        for i in stride(from: n - 1, to: 0, by: -1) { y[i] -= k * y[i - 1] }
        y[0] -= k * y[0]
        for i in 0..<n { y[i] *= window[i] }

        fft.transform()
        let spectrum = fft.output
        for j in 0..<binCount {
            power[j] = spectrum[2 * j] * spectrum[2 * j] + spectrum[2 * j + 1] * spectrum[2 * j + 1]
        }

        filterbank.apply(power: power, energies: logMel)
        for m in 0..<config.melBands { logMel[m] = log(max(logMel[m], config.logFloor)) }

        var features = logMel
        if config.cepstralCoefficients > 0 {
            let melBands = config.melBands
            for q in 0..<config.cepstralCoefficients {
                var c: Float = 0
                for m in 0..<melBands { c += dct[q * melBands + m] * logMel[m] }
                cepstra[q] = c
            }
            features = cepstra
        }

        if let alpha = meanSmoothing {
            for i in 0..<featureCount {
                runningMean[i] += alpha * (features[i] - runningMean[i])
                features[i] -= runningMean[i]
            }
        }
        return UnsafeBufferPointer(start: features, count: featureCount)
    }

    /// D[q, m] = s_q·cos(πq(2m+1)/(2M)) with s_0 = √(1/M), s_q = √(2/M): orthonormal DCT-II.
    private static func orthonormalDCT(rows: Int, columns m: Int) -> [Float] {
        (0..<rows).flatMap { q in
            let scale = (q == 0 ? 1.0 : 2.0) / Double(m)
            return (0..<m).map { i in
                Float(scale.squareRoot() * cos(Double.pi * Double(q * (2 * i + 1)) / Double(2 * m)))
            }
        }
    }

    private static func allocate(count: Int) -> UnsafeMutablePointer<Float> {
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: max(count, 1))
        buffer.initialize(repeating: 0, count: max(count, 1))
        return buffer
    }

    private static func allocate(_ values: [Float]) -> UnsafeMutablePointer<Float> {
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: values.count)
        buffer.initialize(from: values, count: values.count)
        return buffer
    }
}
