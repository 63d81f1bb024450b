import HotwordCore
import Testing

@Suite struct SeededRandomTests {
    @Test func matchesTheReferenceXoshiro256StarStar() {
        // Reference: xoshiro256** (Blackman & Vigna) with its state filled by SplitMix64 from 42.
        var random = SeededRandom(seed: 42)
        #expect([random.next(), random.next(), random.next()] == [0x1578_0B2E_0C2E_C716, 0x6104_D986_6D11_3A7E, 0xAE17_5332_39E4_99A1])
    }

    @Test func uniformAndNormalHaveTheirMoments() {
        var random = SeededRandom(seed: 1)
        let uniform = (0..<20_000).map { _ in random.uniform() }
        #expect(uniform.allSatisfy { $0 >= 0 && $0 < 1 })
        #expect(abs(uniform.reduce(0, +) / 20_000 - 0.5) < 0.01)
        let normal = (0..<20_000).map { _ in random.normal() }
        let mean = normal.reduce(0, +) / 20_000
        let variance = normal.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / 20_000
        #expect(abs(mean) < 0.03 && abs(variance - 1) < 0.05)
    }

    @Test func derivedStreamsDiffer() {
        var a = SeededRandom.derived(seed: 5, stream: 0), b = SeededRandom.derived(seed: 5, stream: 1)
        var again = SeededRandom.derived(seed: 5, stream: 0), plain = SeededRandom(seed: 5)
        let first = a.next()
        #expect(first != b.next())
        #expect(first == again.next())
        #expect(first != plain.next())
    }
}
