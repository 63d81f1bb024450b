import Foundation

/// Whisper's log-mel spectrogram, computed as faster-whisper's `FeatureExtractor` does: 160 zero
/// samples appended, a centred STFT (reflected edges) with a 400-point periodic Hann window every
/// 160 samples, its last frame dropped, power spectrum, 80 Slaney mel bands with Slaney area
/// normalisation (librosa's defaults), log10 floored at 1e-10 and at 8 below the largest value,
/// then (x + 4) / 4. The DFT is a matrix product with a windowed cosine/sine basis: 201 bins of
/// a 400-point frame, which no power-of-two FFT gives.
public struct WhisperLogMel: Sendable {
    public static let sampleRate = 16_000
    public static let hop = 160
    static let frameLength = 400
    static let bins = frameLength / 2 + 1

    public let bands: Int
    /// bands × bins.
    private let filters: [Float]
    /// (2·bins) × frameLength: the window times cos, then times sin, of each bin's frequency.
    private let basis: [Float]

    public init(bands: Int = 80) {
        self.bands = bands
        filters = Self.slaneyFilters(bands: bands)
        basis = Self.windowedBasis()
    }

    /// The features of `samples` (16 kHz): `bands` rows of `frames` values (band-major), one frame
    /// per 160 samples plus one. Fewer than 160 samples give none.
    public func features(_ samples: [Float]) -> (values: [Float], frames: Int) {
        guard samples.count >= Self.hop else { return ([], 0) }
        let half = Self.frameLength / 2
        let padded = samples.count + Self.hop
        // Reflected at both ends (numpy's "reflect": the edge sample is not repeated).
        let extended = [Float](unsafeUninitializedCapacity: padded + 2 * half) { buffer, count in
            func sample(_ index: Int) -> Float { index < samples.count ? samples[index] : 0 }
            for i in 0..<(padded + 2 * half) {
                let j = i - half
                buffer[i] = sample(j < 0 ? -j : j >= padded ? 2 * (padded - 1) - j : j)
            }
            count = padded + 2 * half
        }
        let frames = padded / Self.hop  // the STFT's 1 + padded/hop frames less the last
        var spectrum = [Float](repeating: 0, count: frames * 2 * Self.bins)
        var power = [Float](repeating: 0, count: frames * Self.bins)
        var mel = [Float](repeating: 0, count: bands * frames)
        extended.withUnsafeBufferPointer { x in
            basis.withUnsafeBufferPointer { b in
                spectrum.withUnsafeMutableBufferPointer { s in
                    // Frame f starts `hop` samples after frame f − 1: in pieces of at most `hop`
                    // samples, each piece's rows lie `hop` apart in the signal itself, no copies.
                    for start in stride(from: 0, to: Self.frameLength, by: Self.hop) {
                        matrixProduct(x.baseAddress! + start, lda: Self.hop, b.baseAddress! + start, ldb: Self.frameLength,
                                      transposeB: true, rows: frames, columns: 2 * Self.bins,
                                      inner: min(Self.hop, Self.frameLength - start), accumulate: start > 0,
                                      into: s.baseAddress!, ldc: 2 * Self.bins)
                    }
                }
            }
        }
        for f in 0..<frames {
            for k in 0..<Self.bins {
                let re = spectrum[f * 2 * Self.bins + k], im = spectrum[f * 2 * Self.bins + Self.bins + k]
                power[f * Self.bins + k] = re * re + im * im
            }
        }
        filters.withUnsafeBufferPointer { w in
            power.withUnsafeBufferPointer { p in
                mel.withUnsafeMutableBufferPointer { m in
                    matrixProduct(w.baseAddress!, lda: Self.bins, p.baseAddress!, ldb: Self.bins, transposeB: true,
                                  rows: bands, columns: frames, inner: Self.bins, accumulate: false,
                                  into: m.baseAddress!, ldc: frames)
                }
            }
        }
        var largest = -Float.infinity
        for i in mel.indices {
            mel[i] = log10f(max(mel[i], 1e-10))
            largest = max(largest, mel[i])
        }
        for i in mel.indices { mel[i] = (max(mel[i], largest - 8) + 4) / 4 }
        return (mel, frames)
    }

    private static func windowedBasis() -> [Float] {
        var basis = [Float](repeating: 0, count: 2 * bins * frameLength)
        for n in 0..<frameLength {
            let window = 0.5 - 0.5 * cos(2 * Double.pi * Double(n) / Double(frameLength))  // periodic Hann
            for k in 0..<bins {
                // k·n mod N keeps the angle small, so cos and sin stay exact for large k·n.
                let angle = 2 * Double.pi * Double((k * n) % frameLength) / Double(frameLength)
                basis[k * frameLength + n] = Float(window * cos(angle))
                basis[(bins + k) * frameLength + n] = Float(window * sin(angle))
            }
        }
        return basis
    }

    /// librosa.filters.mel(sr: 16000, n_fft: 400, n_mels: bands) with its defaults (htk false,
    /// norm "slaney"), in the form faster-whisper writes it out.
    private static func slaneyFilters(bands: Int) -> [Float] {
        let linearStep = 200.0 / 3, logStart = 1000.0, logStartMel = logStart / linearStep, logStep = log(6.4) / 27
        func hertz(mel: Double) -> Double {
            mel >= logStartMel ? logStart * exp(logStep * (mel - logStartMel)) : linearStep * mel
        }
        let highestMel = logStartMel + log(Double(sampleRate / 2) / logStart) / logStep
        let edges = (0..<(bands + 2)).map { hertz(mel: highestMel * Double($0) / Double(bands + 1)) }
        var filters = [Float](repeating: 0, count: bands * bins)
        for band in 0..<bands {
            let (lower, centre, upper) = (edges[band], edges[band + 1], edges[band + 2])
            let area = 2 / (upper - lower)
            for k in 0..<bins {
                let frequency = Double(k * sampleRate) / Double(frameLength)
                let rising = (frequency - lower) / (centre - lower), falling = (upper - frequency) / (upper - centre)
                filters[band * bins + k] = Float(max(0, min(rising, falling)) * area)
            }
        }
        return filters
    }
}
