import Foundation

extension WindowFunction {
    /// The window's N = `length` coefficients (symmetric forms, as Kaldi uses them, but for
    /// `hannPeriodic`).
    func coefficients(length n: Int) -> [Float] {
        let a = 2 * Double.pi / Double(n - 1)
        return (0..<n).map { i in
            let hann = 0.5 - 0.5 * cos(a * Double(i))
            let w: Double = switch self {
            case .hann: hann
            case .hannPeriodic: 0.5 - 0.5 * cos(2 * Double.pi * Double(i) / Double(n))
            case .hamming: 0.54 - 0.46 * cos(a * Double(i))
            case .povey: pow(hann, 0.85)
            case .rectangular: 1
            }
            return Float(w)
        }
    }
}
