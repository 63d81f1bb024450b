import Foundation
import HotwordTraining
import Testing

@Suite struct EvaluationStreamTests {
    /// Clips of distinct tones and lengths, so each one can be told apart in the stream.
    func clips(_ count: Int, seconds: Double, offset: Int) -> [[Float]] {
        (0..<count).map { index -> [Float] in
            let step = 2 * Float.pi * Float(200 + 50 * (index + offset)) / 16_000
            let length = Int(seconds * 16_000) + 160 * index
            return (0..<length).map { (n: Int) -> Float in 0.3 * sin(step * Float(n)) }
        }
    }

    /// Several passes hear every clip once per pass, each pass in its own order and noise; the
    /// first pass is exactly the one-pass stream, so one-pass figures stay reproducible.
    @Test func passesRepeatEveryClipInAFreshOrder() {
        let keywords = clips(6, seconds: 0.5, offset: 0), negatives = clips(12, seconds: 1, offset: 10)
        let noise = [NetworkTestData.values(16_000, seed: 3, scale: 0.1)]
        func stream(passes: Int) -> EvaluationStream {
            EvaluationStream(positives: keywords, positiveNames: (0..<6).map { "k\($0)" }, negatives: negatives,
                             negativeNames: (0..<12).map { "n\($0)" }, noise: noise, snr: 10, seed: 5, passes: passes)
        }
        let one = stream(passes: 1), three = stream(passes: 3)

        #expect(Array(three.samples.prefix(one.samples.count)) == one.samples)
        #expect(three.keywordRanges.count == 18 && three.negativeClips.count == 36)
        for pass in 0..<3 {
            let names = three.keywordNames[(6 * pass)..<(6 * pass + 6)]
            #expect(Set(names) == Set((0..<6).map { "k\($0)" }), "every keyword clip once in pass \(pass + 1)")
            #expect(Set(three.negativeClips[(12 * pass)..<(12 * pass + 12)].map(\.name)).count == 12)
        }
        #expect(three.keywordNames[0..<6] != three.keywordNames[6..<12] || three.keywordNames[6..<12] != three.keywordNames[12..<18],
                "passes are shuffled afresh: \(three.keywordNames)")
        #expect(zip(three.keywordRanges, three.keywordRanges.dropFirst()).allSatisfy { $0.upperBound < $1.lowerBound })
        #expect(three.negativeDuration > 2.5 * one.negativeDuration && three.negativeDuration < 3.5 * one.negativeDuration)
        // Noise lies over every pass, not only the first.
        let lastPause = three.negativeClips.last!.range.upperBound..<three.samples.count
        #expect(lastPause.count > 100 && three.samples[lastPause].contains { $0 != 0 })
    }
}
