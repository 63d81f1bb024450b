import HotwordSIMD

/// Triangular mel filters over the power-spectrum bins 0...fftSize/2, stored sparsely: each
/// band keeps only the run of bins where its weight is positive.
///
/// Band m (0-based) rises from edge m to a peak at edge m+1 and falls to edge m+2, where the
/// melBands + 2 edges are equally spaced on the mel scale from lowFrequency to highFrequency.
/// - `.htk`: triangles linear in mel with peak 1 (HTK, Kaldi).
/// - `.slaney`: triangles linear in Hz, area-normalised to 1 (height 2 / (edge m+2 − edge m)),
///   as in Slaney's Auditory Toolbox and librosa's default `filters.mel(norm="slaney")`.
struct MelFilterbank {
    struct Band {
        /// The band's first power-spectrum bin with a positive weight.
        let firstBin: Int
        /// Where the band's weights start in `weights`.
        let weightOffset: Int
        /// Positive weights, followed by zeros up to `vectorCount` whole vectors.
        let weightCount: Int
        let vectorCount: Int
    }

    let bands: [Band]
    /// Every band's weights, one run after the other, each run zero-padded to whole vectors.
    let weights: [Float]
    /// Bins `apply` reads: the power spectrum's fftSize/2 + 1, plus zeros under the last
    /// band's padding.
    let spectrumLength: Int

    init(_ config: FrontendConfig) throws(FrontendConfigError) {
        try config.validateScalarParameters()
        let scale = config.melScale
        let binSpacing = Double(config.sampleRate) / Double(config.fftSize)
        let edgeMels = Self.edgeMels(config)
        let edgesHz = edgeMels.map(scale.hz(mel:))
        var bands: [Band] = []
        var weights: [Float] = []
        for m in 0..<config.melBands {
            let (left, centre, right) = (edgesHz[m], edgesHz[m + 1], edgesHz[m + 2])
            let weight: (Double) -> Double = switch scale {
            case .htk:
                { f in Self.triangle(scale.mel(hz: f), edgeMels[m], edgeMels[m + 1], edgeMels[m + 2]) }
            case .slaney:
                { f in Self.triangle(f, left, centre, right) * 2 / (right - left) }
            }
            let bandWeights = (0...config.fftSize / 2).map { k in weight(Double(k) * binSpacing) }
            guard let firstBin = bandWeights.firstIndex(where: { $0 > 0 }),
                  let lastBin = bandWeights.lastIndex(where: { $0 > 0 }) else {
                throw .melBandWithoutBins(band: m, lowEdge: Float(left), highEdge: Float(right),
                                          binSpacing: Float(binSpacing))
            }
            let weightCount = lastBin - firstBin + 1
            bands.append(Band(firstBin: firstBin, weightOffset: weights.count, weightCount: weightCount,
                              vectorCount: FloatVector.paddedCount(weightCount) / FloatVector.scalarCount))
            weights.append(contentsOf: bandWeights[firstBin...lastBin].map(Float.init))
            weights.append(contentsOf: repeatElement(0, count: FloatVector.paddedCount(weights.count) - weights.count))
        }
        self.bands = bands
        self.weights = weights
        spectrumLength = bands.reduce(config.fftSize / 2 + 1) { length, band in
            max(length, band.firstBin + band.vectorCount * FloatVector.scalarCount)
        }
    }

    /// The melBands + 2 filter edges in mel, equally spaced from lowFrequency to highFrequency.
    private static func edgeMels(_ config: FrontendConfig) -> [Double] {
        let low = config.melScale.mel(hz: Double(config.lowFrequency))
        let high = config.melScale.mel(hz: Double(config.highFrequency))
        let step = (high - low) / Double(config.melBands + 1)
        return (0...config.melBands + 1).map { i in low + Double(i) * step }
    }

    /// A unit-height triangle over (left, right) peaking at `centre`; 0 outside.
    private static func triangle(_ x: Double, _ left: Double, _ centre: Double, _ right: Double) -> Double {
        guard x > left, x < right else { return 0 }
        return x <= centre ? (x - left) / (centre - left) : (right - x) / (right - centre)
    }

    /// energies[m] = Σ_j H_m[j]·power[j]; `power` holds `spectrumLength` bins.
    func apply(power: UnsafePointer<Float>, energies: UnsafeMutablePointer<Float>) {
        weights.withUnsafeBufferPointer { weights in
            bands.withUnsafeBufferPointer { bands in
                for (m, band) in bands.enumerated() {
                    var w = weights.baseAddress! + band.weightOffset
                    var p = power + band.firstBin
                    var energy = FloatVector()
                    for _ in 0..<band.vectorCount {
                        energy += FloatVector(loading: w) * FloatVector(loading: p)
                        w += FloatVector.scalarCount
                        p += FloatVector.scalarCount
                    }
                    energies[m] = (energy.lowHalf + energy.highHalf).sum()
                }
            }
        }
    }
}
