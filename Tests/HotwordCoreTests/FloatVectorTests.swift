import Foundation
import HotwordSIMD
@testable import HotwordCore
import Testing

@Suite struct FloatVectorTests {
    /// The largest `error(vectorised, exact)` of `function` against `exact` (in Double) over
    /// `inputs`, a vector at a time.
    static func largestError(_ inputs: [Float], _ function: (FloatVector) -> FloatVector, exact: (Double) -> Double,
                             error: (Double, Double) -> Double) -> Double {
        var largest = 0.0
        for start in stride(from: 0, to: inputs.count - FloatVector.scalarCount, by: FloatVector.scalarCount) {
            let x = FloatVector(inputs[start..<start + FloatVector.scalarCount])
            let y = function(x)
            for lane in 0..<FloatVector.scalarCount {
                largest = max(largest, error(Double(y[lane]), exact(Double(x[lane]))))
            }
        }
        return largest
    }

    /// The vectorised ln against libm in Double, over every binade of normal floats.
    @Test func naturalLogarithmMatchesLibm() {
        var random = SplitMix64(seed: 8)
        var inputs: [Float] = [1, 2, 0.5, Float(2).squareRoot(), Float(2).squareRoot().nextDown,
                               Float(0.5).squareRoot(), .leastNormalMagnitude, .greatestFiniteMagnitude, 1e-6]
        for exponent in -126...127 {
            inputs += (0..<40).map { _ in Float(sign: .plus, exponent: exponent, significand: .random(in: 1..<2, using: &random)) }
        }
        let largestError = Self.largestError(inputs, { $0.naturalLogarithm() }, exact: log) { abs($0 - $1) / max(1, abs($1)) }
        // A few ulp of the result (ulp(1) ≈ 1.2e-7), relative once |ln x| > 1.
        #expect(largestError < 4e-7, "largest error \(largestError)")
    }

    /// The vectorised exp against libm in Double, relative error, over its whole range; beyond
    /// it the result is clamped to a finite normal float.
    @Test func exponentialMatchesLibm() {
        var random = SplitMix64(seed: 9)
        let inputs: [Float] = [0, 1, -1, 0.5 * Float(M_LN2), -0.5 * Float(M_LN2), -87, 88] + (0..<4_000).map { _ in .random(in: -87...88, using: &random) }
        let largestError = Self.largestError(inputs, { $0.exponential() }, exact: exp) { abs($0 - $1) / $1 }
        #expect(largestError < 5e-7, "largest error \(largestError)")
        let outside = FloatVector(-1_000, -100, 100, 1_000, .infinity, -.infinity, 0, 0).exponential()
        #expect((0..<6).allSatisfy { outside[$0].isNormal }, "\(outside)")
    }

    /// erf against libm in Double, absolute error (as GELU uses it: x·(1 + erf(x/√2))/2), from
    /// tiny arguments through the tails, where it is ±1.
    @Test func errorFunctionMatchesLibm() {
        var random = SplitMix64(seed: 10)
        let inputs: [Float] = [0, 1e-30, -1e-30, 0.5, -0.5, 3.9, -3.9, 9, 100, -100] + (0..<4_000).map { _ in .random(in: -6...6, using: &random) }
        let largestError = Self.largestError(inputs, { $0.errorFunction() }, exact: erf) { abs($0 - $1) }
        #expect(largestError < 5e-7, "largest error \(largestError)")
        let signs = FloatVector(-.infinity, -1e-3, 1e-3, .infinity, 0, -0.0, 2, -2).errorFunction()
        #expect(signs[0] == -1 && signs[3] == 1 && signs[1] < 0 && signs[2] > 0 && abs(signs[4]) < 5e-7, "\(signs)")
    }

    /// a^b = e^(b·ln a), as PCEN uses it (roots and negative gains of energies).
    @Test func powerMatchesLibm() {
        let bases = FloatVector(1e-6, 3.2e-4, 0.01, 0.5, 1, 2, 37, 4.1e4)
        for exponent: Float in [0.5, -0.98, 0.25, 1] {
            let y = bases.power(exponent)
            for lane in 0..<FloatVector.scalarCount {
                let exact = pow(Double(bases[lane]), Double(exponent))
                #expect(abs(Double(y[lane]) - exact) / exact < 2e-6, "\(bases[lane])^\(exponent): \(y[lane]) against \(exact)")
            }
        }
    }

    @Test func paddedCountRoundsUpToWholeVectors() {
        #expect([0, 1, 7, 8, 9, 40, 41].map(FloatVector.paddedCount) == [0, 8, 8, 8, 16, 40, 48])
    }
}
