import Foundation
@testable import HotwordCore
import Testing

@Suite struct MelFilterbankTests {
    @Test func htkScaleKnownValues() {
        // 2595·log10(1 + 1000/700): the HTK scale puts 1 kHz at (almost exactly) 1000 mel.
        #expect(abs(MelScale.htk.mel(hz: 1_000) - 999.98554) < 1e-4)
        #expect(abs(MelScale.htk.mel(hz: 4_000) - 2_146.06453) < 1e-4)
        #expect(MelScale.htk.mel(hz: 0) == 0)
        for f in [20.0, 700, 1_000, 3_456.7, 8_000] {
            #expect(abs(MelScale.htk.hz(mel: MelScale.htk.mel(hz: f)) - f) < 1e-9 * f)
        }
    }

    @Test func slaneyScaleKnownValues() {
        // Linear at 200/3 Hz per mel below 1 kHz (= 15 mel), then 27 mel per factor 6.4.
        #expect(abs(MelScale.slaney.mel(hz: 500) - 7.5) < 1e-12)
        #expect(abs(MelScale.slaney.mel(hz: 1_000) - 15) < 1e-12)
        #expect(abs(MelScale.slaney.mel(hz: 6_400) - 42) < 1e-12)
        for f in [20.0, 999, 1_000, 1_001, 8_000] {
            #expect(abs(MelScale.slaney.hz(mel: MelScale.slaney.mel(hz: f)) - f) < 1e-9 * f)
        }
    }

    @Test(arguments: [
        FrontendConfig(), FrontendConfig(melScale: .slaney),
        FrontendConfig(fftSize: 2_048, melBands: 80, lowFrequency: 0, highFrequency: 8_000, melScale: .slaney),
    ])
    func sparseWeightsMatchDenseReferenceMatrix(config: FrontendConfig) throws {
        let filterbank = try MelFilterbank(config)
        let reference = ReferenceFrontend(config: config).melMatrix()
        for (m, expected) in reference.enumerated() {
            let dense = Self.denseWeights(filterbank, band: m, binCount: config.fftSize / 2 + 1)
            let peak = expected.max()!
            for (j, weight) in expected.enumerated() {
                #expect(abs(dense[j] - weight) <= 1e-6 * peak, "band \(m) bin \(j)")
            }
        }
    }

    /// Each filter peaks at one of the two bins around its centre frequency (edge m + 1).
    @Test(arguments: MelScale.allCases)
    func filtersPeakAtTheirCentreBins(scale: MelScale) throws {
        let config = FrontendConfig(fftSize: 1_024, melScale: scale)
        let filterbank = try MelFilterbank(config)
        let edges = ReferenceFrontend(config: config).edgeFrequencies()
        let binSpacing = Double(config.sampleRate) / Double(config.fftSize)
        for m in 0..<config.melBands {
            let dense = Self.denseWeights(filterbank, band: m, binCount: config.fftSize / 2 + 1)
            let peakBin = dense.indices.max { dense[$0] < dense[$1] }!
            let centreBin = edges[m + 1] / binSpacing
            #expect(Double(peakBin) >= centreBin.rounded(.down) && Double(peakBin) <= centreBin.rounded(.up),
                    "band \(m): peak at bin \(peakBin), centre at bin \(centreBin)")
            if scale == .htk { #expect(dense[peakBin] <= 1) }
        }
    }

    /// Slaney filters are area-normalised: Σ_j H[j]·Δf ≈ 1 (exact for the continuous triangle).
    @Test func slaneyFiltersHaveUnitArea() throws {
        let config = FrontendConfig(fftSize: 4_096, melScale: .slaney)
        let filterbank = try MelFilterbank(config)
        let binSpacing = Float(config.sampleRate) / Float(config.fftSize)
        for band in filterbank.bands {
            let area = filterbank.weights[band.weightOffset..<band.weightOffset + band.weightCount]
                .reduce(0, +) * binSpacing
            #expect(abs(area - 1) < 0.01, "area \(area)")
        }
    }

    /// HTK filters are not normalised: the peak weight is 1 (approached when a bin sits near the centre).
    @Test func htkFiltersHaveUnitPeak() throws {
        let filterbank = try MelFilterbank(FrontendConfig(fftSize: 4_096))
        for band in filterbank.bands {
            let peak = filterbank.weights[band.weightOffset..<band.weightOffset + band.weightCount].max()!
            #expect(peak <= 1 && peak > 0.9)
        }
    }

    static func denseWeights(_ filterbank: MelFilterbank, band m: Int, binCount: Int) -> [Double] {
        let band = filterbank.bands[m]
        var dense = [Double](repeating: 0, count: binCount)
        for j in 0..<band.weightCount {
            dense[band.firstBin + j] = Double(filterbank.weights[band.weightOffset + j])
        }
        return dense
    }
}
