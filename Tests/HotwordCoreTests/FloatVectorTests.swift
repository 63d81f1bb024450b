import Foundation
@testable import HotwordCore
import Testing

@Suite struct FloatVectorTests {
    /// The vectorised ln against libm in Double, over every binade of normal floats.
    @Test func naturalLogarithmMatchesLibm() {
        var random = SplitMix64(seed: 8)
        var inputs: [Float] = [1, 2, 0.5, Float(2).squareRoot(), Float(2).squareRoot().nextDown,
                               Float(0.5).squareRoot(), .leastNormalMagnitude, .greatestFiniteMagnitude, 1e-6]
        for exponent in -126...127 {
            inputs += (0..<40).map { _ in Float(sign: .plus, exponent: exponent, significand: .random(in: 1..<2, using: &random)) }
        }
        var largestError = 0.0
        for start in stride(from: 0, to: inputs.count - FloatVector.scalarCount, by: FloatVector.scalarCount) {
            let x = FloatVector(inputs[start..<start + FloatVector.scalarCount])
            let y = x.naturalLogarithm()
            for lane in 0..<FloatVector.scalarCount {
                let exact = log(Double(x[lane]))
                largestError = max(largestError, abs(Double(y[lane]) - exact) / max(1, abs(exact)))
            }
        }
        // A few ulp of the result (ulp(1) ≈ 1.2e-7), relative once |ln x| > 1.
        #expect(largestError < 4e-7, "largest error \(largestError)")
    }

    @Test func paddedCountRoundsUpToWholeVectors() {
        #expect([0, 1, 7, 8, 9, 40, 41].map(FloatVector.paddedCount) == [0, 8, 8, 8, 16, 40, 48])
    }
}
