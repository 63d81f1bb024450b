import Foundation

extension MelScale {
    /// Slaney's scale: 200/3 Hz per mel up to 1 kHz (= 15 mel), then 27 mel per factor 6.4.
    private static let slaneyHzPerMel = 200.0 / 3
    private static let slaneyLogRegionHz = 1_000.0
    private static let slaneyLogRegionMel = slaneyLogRegionHz / slaneyHzPerMel
    private static let slaneyLogStep = log(6.4) / 27

    /// The mel value of a frequency in Hz.
    func mel(hz f: Double) -> Double {
        switch self {
        case .htk:
            2595 * log10(1 + f / 700)
        case .slaney where f < Self.slaneyLogRegionHz:
            f / Self.slaneyHzPerMel
        case .slaney:
            Self.slaneyLogRegionMel + log(f / Self.slaneyLogRegionHz) / Self.slaneyLogStep
        }
    }

    /// The frequency in Hz of a mel value (inverse of `mel(hz:)`).
    func hz(mel m: Double) -> Double {
        switch self {
        case .htk:
            700 * (pow(10, m / 2595) - 1)
        case .slaney where m < Self.slaneyLogRegionMel:
            m * Self.slaneyHzPerMel
        case .slaney:
            Self.slaneyLogRegionHz * exp(Self.slaneyLogStep * (m - Self.slaneyLogRegionMel))
        }
    }
}
