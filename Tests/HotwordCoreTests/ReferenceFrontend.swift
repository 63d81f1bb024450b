import Foundation
import HotwordCore

/// A deliberately plain, slow Double-precision frontend written from the textbook formulas —
/// direct O(N²) DFT, dense mel matrix — that shares no code with HotwordCore: it only reads
/// the config's fields.
struct ReferenceFrontend {
    let config: FrontendConfig

    static func htkMel(_ f: Double) -> Double { 2595 * log10(1 + f / 700) }
    static func htkHz(_ mel: Double) -> Double { 700 * (pow(10, mel / 2595) - 1) }
    /// Linear (3 mel per 200 Hz) to 1 kHz, then 27 mel per factor 6.4.
    static func slaneyMel(_ f: Double) -> Double {
        f < 1000 ? 3 * f / 200 : 15 + 27 * log(f / 1000) / log(6.4)
    }
    static func slaneyHz(_ mel: Double) -> Double {
        mel < 15 ? 200 * mel / 3 : 1000 * pow(6.4, (mel - 15) / 27)
    }

    /// The melBands + 2 filter edges in Hz, equally spaced on the config's scale.
    func edgeFrequencies() -> [Double] {
        let (toMel, toHz) = config.melScale == .htk ? (Self.htkMel, Self.htkHz) : (Self.slaneyMel, Self.slaneyHz)
        let low = toMel(Double(config.lowFrequency)), high = toMel(Double(config.highFrequency))
        return (0...config.melBands + 1).map { i in
            toHz(low + Double(i) * (high - low) / Double(config.melBands + 1))
        }
    }

    /// H[m][j]: weight of power-spectrum bin j (j = 0…fftSize/2) in mel band m.
    /// HTK: triangles linear in mel, peak 1. Slaney: triangles linear in Hz with area 1.
    func melMatrix() -> [[Double]] {
        let edges = edgeFrequencies()
        return (0..<config.melBands).map { m in
            (0...config.fftSize / 2).map { j in
                let f = Double(j) * Double(config.sampleRate) / Double(config.fftSize)
                let (left, centre, right) = (edges[m], edges[m + 1], edges[m + 2])
                switch config.melScale {
                case .htk:
                    let (x, l, c, r) = (Self.htkMel(f), Self.htkMel(left), Self.htkMel(centre), Self.htkMel(right))
                    guard x > l, x < r else { return 0 }
                    return x <= c ? (x - l) / (c - l) : (r - x) / (r - c)
                case .slaney:
                    let rising = (f - left) / (centre - left), falling = (right - f) / (right - centre)
                    return max(0, min(rising, falling)) * 2 / (right - left)
                }
            }
        }
    }

    func window() -> [Double] {
        let n = config.frameLength
        return (0..<n).map { i in
            let hann = 0.5 - 0.5 * cos(2 * Double.pi * Double(i) / Double(n - 1))
            switch config.window {
            case .hann: return hann
            case .hannPeriodic: return 0.5 - 0.5 * cos(2 * Double.pi * Double(i) / Double(n))
            case .hamming: return 0.54 - 0.46 * cos(2 * Double.pi * Double(i) / Double(n - 1))
            case .povey: return pow(hann, 0.85)
            case .rectangular: return 1
            }
        }
    }

    /// E_m of one frame of `frameLength` samples.
    func melEnergies(frame: ArraySlice<Float>, melMatrix: [[Double]]) -> [Double] {
        var x = frame.map(Double.init)
        if config.removeDCOffset {
            let mean = x.reduce(0, +) / Double(x.count)
            x = x.map { $0 - mean }
        }
        let k = Double(config.preEmphasis)
        let emphasised = x.indices.map { n in x[n] - k * x[max(n - 1, 0)] }
        let windowed = zip(emphasised, window()).map(*)
        let size = config.fftSize
        // X_j = Σ_n x[n]·e^(−2πijn/K), with e^(−2πir/K) tabulated for r = jn mod K.
        let cosines = (0..<size).map { cos(2 * Double.pi * Double($0) / Double(size)) }
        let sines = (0..<size).map { sin(2 * Double.pi * Double($0) / Double(size)) }
        let power = (0...size / 2).map { j in
            var (re, im) = (0.0, 0.0)
            for (n, value) in windowed.enumerated() {
                re += value * cosines[(j * n) % size]
                im -= value * sines[(j * n) % size]
            }
            return re * re + im * im
        }
        return melMatrix.map { filter in zip(filter, power).map(*).reduce(0, +) }
    }

    /// c_q = s_q Σ_m L_m cos(πq(2m+1)/(2M)), s_0 = √(1/M), s_q = √(2/M).
    static func orthonormalDCT(_ logMel: [Double], keep count: Int) -> [Double] {
        let m = Double(logMel.count)
        return (0..<count).map { q in
            let scale = (q == 0 ? 1 / m : 2 / m).squareRoot()
            return scale * logMel.enumerated().map { i, value in
                value * cos(Double.pi * Double(q) * (2 * Double(i) + 1) / (2 * m))
            }.reduce(0, +)
        }
    }

    /// Every frame's features, including the DCT and the normalisations.
    func features(of signal: [Float]) -> [[Double]] {
        let matrix = melMatrix()
        var mean = [Double](repeating: 0, count: config.featureCount)
        var smoothed: [Double]?
        return stride(from: 0, through: signal.count - config.frameLength, by: config.frameShift).map { start in
            let energies = melEnergies(frame: signal[start..<start + config.frameLength], melMatrix: matrix)
            let logMel: [Double]
            if case .perChannelEnergy(let tau, let gain, let bias, let root, let floor) = config.normalisation {
                let s = 1 - exp(-Double(config.frameShift) / (Double(config.sampleRate) * Double(tau)))
                let previous = smoothed ?? energies
                let m = zip(previous, energies).map { $0 + s * ($1 - $0) }
                smoothed = m
                let (g, d, r, e) = (Double(gain), Double(bias), Double(root), Double(floor))
                logMel = zip(energies, m).map { pow($0 / pow(e + $1, g) + d, r) - pow(d, r) }
            } else {
                logMel = energies.map { log(max($0, Double(config.logFloor))) }
            }
            var features = config.cepstralCoefficients > 0
                ? Self.orthonormalDCT(logMel, keep: config.cepstralCoefficients) : logMel
            if case .runningMean(let tau) = config.normalisation {
                let alpha = 1 - exp(-Double(config.frameShift) / (Double(config.sampleRate) * Double(tau)))
                for i in features.indices {
                    mean[i] += alpha * (features[i] - mean[i])
                    features[i] -= mean[i]
                }
            }
            return features
        }
    }
}

/// A reproducible pseudo-random generator (SplitMix64), so every test run sees the same signals.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

enum TestSignal {
    static let sampleRate = 16_000.0

    static func sine(hz: Double, amplitude: Double = 0.5, count: Int) -> [Float] {
        (0..<count).map { Float(amplitude * sin(2 * Double.pi * hz * Double($0) / sampleRate)) }
    }

    static func whiteNoise(amplitude: Float, count: Int, seed: UInt64) -> [Float] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { _ in Float.random(in: -amplitude...amplitude, using: &random) }
    }

    /// Three tones, a DC offset and a little noise: every stage of the pipeline has work to do.
    static func mixture(count: Int, seed: UInt64 = 1) -> [Float] {
        let noise = whiteNoise(amplitude: 0.02, count: count, seed: seed)
        return (0..<count).map { n in
            let t = Double(n) / sampleRate
            let tones = 0.3 * sin(2 * Double.pi * 440 * t) + 0.2 * sin(2 * Double.pi * 1_700 * t + 0.3)
                + 0.05 * sin(2 * Double.pi * 5_200 * t)
            return Float(tones + 0.1) + noise[n]
        }
    }
}
