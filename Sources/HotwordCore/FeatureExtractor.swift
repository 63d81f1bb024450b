import Foundation
import HotwordSIMD

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
/// 6. L_m = ln(max(E_m, `logFloor`)), or for `.perChannelEnergy(τ, α, δ, r, ε)` (PCEN) instead:
///    M_m ← M_m + s·(E_m − M_m), s = 1 − exp(−S / (sampleRate·τ)), M_m starting at the first
///    frame's E_m; L_m = (E_m / (ε + M_m)^α + δ)^r − δ^r
/// 7. c_q = s_q·Σ_m L_m·cos(πq(2m+1)/(2M)), q < `cepstralCoefficients`, s_0 = √(1/M),
///    s_q = √(2/M) (orthonormal DCT-II)                      only if `cepstralCoefficients` > 0
/// 8. μ_t = μ_{t−1} + α·(f_t − μ_{t−1}), f_t ← f_t − μ_t      for `.runningMean(timeConstant: τ)`:
///    α = 1 − exp(−S / (sampleRate·τ)), μ_{−1} = 0. The *updated* mean is subtracted, so the
///    current frame counts towards its own mean (as in offline mean normalisation); the
///    result equals (1 − α)·(f_t − μ_{t−1}).
///
/// PCEN (step 6's alternative) divides each band by a power of its own recent level: an
/// automatic gain control that cancels stationary noise and loudness, which the logarithm only
/// shifts.
///
/// With a speech embedding (`config.embedding`), the log-mel frames of steps 1–6 go on into
/// its network (`SpeechEmbeddingStream`), and its embeddings are the frames delivered: one every
/// `config.outputFrameShift` samples once `config.outputFrameLength` samples have arrived.
///
/// Lead-in (`leadInFrames` > 0): a stream is taken to have begun long before its first sample
/// with the sound of its first frame. That frame's features are delivered `leadInFrames` times
/// before it is delivered as itself (through the embedding, with one), as if the networks after
/// the frontend had been listening all along. Its PCEN already starts from the first frame, so
/// the copies are PCEN's steady state for that sound: the room's noise, in a stream that starts
/// with a quiet room. `framesProduced` counts the lead-in's frames too.
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
    /// `onFrame` is frame `framesProduced − 1` and ends at sample
    /// (framesProduced − 1)·outputFrameShift + outputFrameLength.
    public private(set) var framesProduced = 0
    /// Copies of the first spectral frame delivered before it (see "Lead-in").
    public let leadInFrames: Int
    private var leadInDelivered = false
    /// Values per spectral frame (log-mel or MFCC), before any embedding.
    private let spectralCount: Int
    private let embeddingStream: SpeechEmbeddingStream?

    private let frameLength: Int
    private let frameShift: Int
    private let binCount: Int
    private let filterbank: MelFilterbank
    private let fft: RealFFT
    /// w[n], n < N.
    private let window: UnsafeMutablePointer<Float>
    /// P_j for j < binCount, then zeros up to `filterbank.spectrumLength`.
    private let power: UnsafeMutablePointer<Float>
    /// E_m, then L_m in place; padded to whole vectors.
    private let logMel: UnsafeMutablePointer<Float>
    /// The orthonormal DCT-II by columns: column m (`cepstralStride` floats) holds D[q, m]
    /// for q < cepstralCoefficients, zero-padded; empty for log-mel features.
    private let dctColumns: UnsafeMutablePointer<Float>
    private let cepstralStride: Int
    private let cepstra: UnsafeMutablePointer<Float>
    /// α of the running mean, nil without normalisation.
    private let meanSmoothing: Float?
    /// μ, zero-padded to whole vectors.
    private let runningMean: UnsafeMutablePointer<Float>
    /// PCEN's constants, s from τ and δ^r computed once; nil for log-mel.
    private let perChannelEnergy: PerChannelEnergyConstants?
    /// PCEN's smoothed energies M_m, valid once the first frame has set them.
    private let smoothedEnergy: UnsafeMutablePointer<Float>
    private var smoothedEnergyStarted = false

    /// Samples not yet consumed by every frame that needs them; `nextFrameStart` indexes the
    /// first sample of the next frame and may lie beyond `historyCount` when frameShift > frameLength.
    private let history: UnsafeMutablePointer<Float>
    private let historyCapacity: Int
    private var historyCount = 0
    private var nextFrameStart = 0

    /// Samples the history holds beyond one frame: dead samples are shifted out only when it
    /// is full, once per ~historySlack / frameShift frames.
    private static let historySlack = 4_096

    public init(config: FrontendConfig, leadInFrames: Int = 0) throws(FrontendConfigError) {
        precondition(leadInFrames >= 0, "leadInFrames must be ≥ 0")
        self.leadInFrames = leadInFrames
        filterbank = try MelFilterbank(config)
        if config.embedding != nil { try config.validate() }
        self.config = config
        featureCount = config.featureCount
        spectralCount = config.spectral.featureCount
        embeddingStream = config.embedding.map { SpeechEmbeddingStream(network: $0) }
        frameLength = config.frameLength
        frameShift = config.frameShift
        binCount = config.fftSize / 2 + 1
        fft = RealFFT(size: config.fftSize)
        window = Self.allocate(config.window.coefficients(length: config.frameLength))
        power = Self.allocate(count: filterbank.spectrumLength)
        logMel = Self.allocate(count: FloatVector.paddedCount(config.melBands))
        cepstralStride = FloatVector.paddedCount(config.cepstralCoefficients)
        dctColumns = Self.allocate(Self.orthonormalDCTColumns(
            coefficients: config.cepstralCoefficients, melBands: config.melBands, stride: cepstralStride))
        cepstra = Self.allocate(count: cepstralStride)
        if case .runningMean(let timeConstant) = config.normalisation {
            meanSmoothing = config.smoothing(timeConstant: timeConstant)
        } else {
            meanSmoothing = nil
        }
        if case .perChannelEnergy(let timeConstant, let gain, let bias, let root, let floor) = config.normalisation {
            perChannelEnergy = PerChannelEnergyConstants(
                smoothing: config.smoothing(timeConstant: timeConstant), gain: gain, bias: bias, root: root, floor: floor,
                biasRoot: pow(bias, root))
        } else {
            perChannelEnergy = nil
        }
        runningMean = Self.allocate(count: FloatVector.paddedCount(spectralCount))
        smoothedEnergy = Self.allocate(count: FloatVector.paddedCount(config.melBands))
        historyCapacity = config.frameLength + Self.historySlack
        history = Self.allocate(count: historyCapacity)
    }

    deinit {
        for buffer in [window, power, logMel, dctColumns, cepstra, runningMean, smoothedEnergy, history] {
            buffer.deallocate()
        }
    }

    /// Forgets the stream: history, running mean and frame count start afresh; the next stream
    /// hears the lead-in unless `leadIn` is false.
    public func reset(leadIn: Bool = true) {
        historyCount = 0
        nextFrameStart = 0
        framesProduced = 0
        leadInDelivered = !leadIn
        runningMean.update(repeating: 0, count: FloatVector.paddedCount(spectralCount))
        smoothedEnergyStarted = false
        embeddingStream?.reset()
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
                if !leadInDelivered {
                    leadInDelivered = true
                    for _ in 0..<leadInFrames { deliver(features, onFrame) }
                }
                deliver(features, onFrame)
            }
        }
    }

    /// Hands one spectral frame on: to `onFrame`, or into the embedding and its output to `onFrame`.
    private func deliver(_ features: UnsafeBufferPointer<Float>, _ onFrame: (UnsafeBufferPointer<Float>) -> Void) {
        if let embeddingStream {
            embeddingStream.push(features) { embedding in
                framesProduced += 1
                onFrame(embedding)
            }
        } else {
            framesProduced += 1
            onFrame(features)
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
        prepareFrame(x)
        fft.transform()
        computePowerSpectrum()
        filterbank.apply(power: power, energies: logMel)
        if let perChannelEnergy {
            normaliseEnergies(perChannelEnergy)
        } else {
            computeLogarithms()
        }
        let features = config.cepstralCoefficients > 0 ? computeCepstra() : logMel
        if let alpha = meanSmoothing { subtractRunningMean(from: features, smoothing: alpha) }
        return UnsafeBufferPointer(start: features, count: spectralCount)
    }

    /// Steps 1–3 into the FFT input (whose zero padding is never written):
    /// y[n] = w[n]·(x̃[n] − k·x̃[n−1]) with x̃ = x − μ and x̃[−1] = x̃[0], as Kaldi does;
    /// computed as w[n]·(x[n] − k·x[n−1] − (1 − k)·μ).
    private func prepareFrame(_ x: UnsafePointer<Float>) {
        let (n, k, w, y) = (frameLength, config.preEmphasis, window, fft.input)
        let mu = config.removeDCOffset ? Self.sum(x, count: n) / Float(n) : 0
        let offset = (1 - k) * mu
        y[0] = w[0] * (x[0] - k * x[0] - offset)
        var i = 1
        let (kVector, offsetVector) = (FloatVector(repeating: k), FloatVector(repeating: offset))
        while i + FloatVector.scalarCount <= n {
            let (current, previous) = (FloatVector(loading: x + i), FloatVector(loading: x + i - 1))
            (FloatVector(loading: w + i) * (current - kVector * previous - offsetVector)).store(to: y + i)
            i += FloatVector.scalarCount
        }
        while i < n {
            y[i] = w[i] * (x[i] - k * x[i - 1] - offset)
            i += 1
        }
    }

    /// Step 4: P_j = Re(X_j)² + Im(X_j)² from FFTW's interleaved (re, im) output.
    private func computePowerSpectrum() {
        let spectrum = fft.output
        var j = 0
        while j + FloatVector.scalarCount <= binCount {
            let low = FloatVector(loading: spectrum + 2 * j)
            let high = FloatVector(loading: spectrum + 2 * j + FloatVector.scalarCount)
            let squares = SIMD16(lowHalf: low * low, highHalf: high * high)
            (squares.evenHalf + squares.oddHalf).store(to: power + j)
            j += FloatVector.scalarCount
        }
        while j < binCount {
            power[j] = spectrum[2 * j] * spectrum[2 * j] + spectrum[2 * j + 1] * spectrum[2 * j + 1]
            j += 1
        }
    }

    /// Step 6 in place, a vector at a time (lanes past melBands are scratch).
    private func computeLogarithms() {
        let floor = FloatVector(repeating: config.logFloor)
        for m in stride(from: 0, to: config.melBands, by: FloatVector.scalarCount) {
            var energy = FloatVector(loading: logMel + m)
            energy.replace(with: floor, where: energy .< floor)
            energy.naturalLogarithm().store(to: logMel + m)
        }
    }

    /// Step 6's PCEN in place, a vector at a time (lanes past melBands are scratch). Powers are
    /// e^(b·ln a) with the vectorised log and exp (the PCEN frontend: 1.2 µs a frame, log-mel 0.8).
    private func normaliseEnergies(_ pcen: PerChannelEnergyConstants) {
        if !smoothedEnergyStarted {
            smoothedEnergy.update(from: logMel, count: FloatVector.paddedCount(config.melBands))
            smoothedEnergyStarted = true
        }
        let smallest = FloatVector(repeating: .leastNormalMagnitude)
        for m in stride(from: 0, to: config.melBands, by: FloatVector.scalarCount) {
            let energy = FloatVector(loading: logMel + m)
            var smoothed = FloatVector(loading: smoothedEnergy + m)
            smoothed += pcen.smoothing * (energy - smoothed)
            smoothed.store(to: smoothedEnergy + m)
            // (bias may be 0 and the energy 0: keep the logarithm's argument a positive normal float.)
            var biased = energy * (pcen.floor + smoothed).power(-pcen.gain) + pcen.bias
            biased.replace(with: smallest, where: biased .< smallest)
            (biased.power(pcen.root) - pcen.biasRoot).store(to: logMel + m)
        }
    }

    /// Step 7: c = Σ_m L_m·D[:, m], a vector of cepstra per column.
    private func computeCepstra() -> UnsafeMutablePointer<Float> {
        for q in stride(from: 0, to: cepstralStride, by: FloatVector.scalarCount) {
            var c = FloatVector()
            for m in 0..<config.melBands {
                c += logMel[m] * FloatVector(loading: dctColumns + m * cepstralStride + q)
            }
            c.store(to: cepstra + q)
        }
        return cepstra
    }

    /// Step 8 on the (zero-padded) features in place.
    private func subtractRunningMean(from features: UnsafeMutablePointer<Float>, smoothing alpha: Float) {
        for i in stride(from: 0, to: spectralCount, by: FloatVector.scalarCount) {
            let f = FloatVector(loading: features + i)
            var mean = FloatVector(loading: runningMean + i)
            mean += alpha * (f - mean)
            mean.store(to: runningMean + i)
            (f - mean).store(to: features + i)
        }
    }

    private static func sum(_ x: UnsafePointer<Float>, count n: Int) -> Float {
        var partial = FloatVector()
        var i = 0
        while i + FloatVector.scalarCount <= n {
            partial += FloatVector(loading: x + i)
            i += FloatVector.scalarCount
        }
        var total = partial.sum()
        while i < n {
            total += x[i]
            i += 1
        }
        return total
    }

    /// Column m holds D[q, m] = s_q·cos(πq(2m+1)/(2M)), s_0 = √(1/M), s_q = √(2/M) (orthonormal
    /// DCT-II) for q < `coefficients`, then zeros up to `stride`.
    private static func orthonormalDCTColumns(coefficients: Int, melBands m: Int, stride: Int) -> [Float] {
        (0..<m).flatMap { i in
            (0..<stride).map { q in
                guard q < coefficients else { return 0 }
                let scale = ((q == 0 ? 1.0 : 2.0) / Double(m)).squareRoot()
                return Float(scale * cos(Double.pi * Double(q * (2 * i + 1)) / Double(2 * m)))
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

/// PCEN's parameters as step 6 uses them: s = 1 − exp(−S / (sampleRate·τ)) and δ^r are computed
/// once, not per frame.
private struct PerChannelEnergyConstants {
    let smoothing: Float
    let gain: Float
    let bias: Float
    let root: Float
    let floor: Float
    let biasRoot: Float
}
