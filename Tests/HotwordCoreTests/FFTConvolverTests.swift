import HotwordCore
import HotwordTestSupport
import Testing

@Suite struct FFTConvolverTests {
    @Test func equalsDirectConvolution() {
        var rng = SeededGenerator(seed: 5)
        let convolver = FFTConvolver()
        for (n, m) in [(1, 1), (100, 7), (1_000, 333), (64, 64), (5, 300)] {
            let x = rng.floats(n), h = rng.floats(m)
            var direct = [Double](repeating: 0, count: n + m - 1)
            for i in 0..<n { for j in 0..<m { direct[i + j] += Double(x[i]) * Double(h[j]) } }
            let fast = convolver.convolve(x, with: h)
            #expect(fast.count == direct.count)
            let worst = zip(fast, direct).map { abs(Double($0) - $1) }.max() ?? 0
            #expect(worst < 1e-4, "n \(n) m \(m): max error \(worst)")
        }
        #expect(convolver.convolve([], with: [1]).isEmpty)
    }
}
