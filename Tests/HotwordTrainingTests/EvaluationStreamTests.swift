import Foundation
@testable import HotwordTraining
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

    /// Each negative clip keeps its source; noise heard alone follows each pass's speech with no
    /// noise bed over it; every sample of a source's clips and pauses is counted for it; and a
    /// false alarm is charged to the source playing at its time.
    @Test func falseAlarmsAreToldPerSource() {
        let keywords = clips(2, seconds: 0.5, offset: 0), speech = clips(6, seconds: 1, offset: 10)
        let hum = clips(2, seconds: 3, offset: 30)
        let stream = EvaluationStream(positives: keywords, negatives: speech, negativeNames: (0..<6).map { "s\($0)" },
                                      negativeSources: ["read", "read", "read", "phone", "phone", "phone"],
                                      noise: [NetworkTestData.values(16_000, seed: 3, scale: 0.1)], snr: 10,
                                      noiseAlone: [.init(source: "hum", clips: hum, names: ["h0", "h1"])], seed: 2, passes: 2)
        #expect(stream.sourceNames == ["read", "phone", "hum"])
        #expect(stream.negativeClips.count == 16 && stream.negativeClipSources.count == 16)
        let humClips = stream.negativeClips.indices.filter { stream.negativeClipSources[$0] == 2 }
        #expect(humClips.count == 4 && humClips.allSatisfy { stream.negativeClips[$0].name.hasPrefix("h") })
        // Heard alone: each hum clip sits after its pass's speech, at the speech level ± 10 dB, with nothing added.
        for index in humClips {
            let range = stream.negativeClips[index].range
            let level = 20 * log10(Mixing.rms(stream.samples[range]))
            #expect(abs(level - EvaluationStream.speechLevel) <= EvaluationStream.noiseAloneLevelSpread + 0.01, "level \(level) dB")
            let source = hum[Int(stream.negativeClips[index].name.dropFirst())!]
            let ratios = zip(stream.samples[range], source).filter { abs($1) > 0.05 }.map { $0 / $1 }
            #expect(ratios.max()! - ratios.min()! < 1e-3, "the clip scaled, nothing mixed in")
        }
        #expect(stream.sourceSamples[2] == 4 * 3 * 16_000 + 2 * 160)
        let speechSamples = stream.negativeClips.indices.filter { stream.negativeClipSources[$0] < 2 }.map { stream.negativeClips[$0].range.count }.reduce(0, +)
        #expect(stream.sourceSamples[0] + stream.sourceSamples[1] > speechSamples + 12 * 4_800, "pauses after a clip count for its source")

        let inHum = stream.negativeClips[humClips[1]].range.lowerBound + 100, inPhone = stream.negativeClips[stream.negativeClipSources.firstIndex(of: 1)!].range.lowerBound + 100
        let point = OperatingPoint(sensitivity: 0.5, threshold: 0.9, keywords: 4, misses: 0, falseAlarms: 3, negativeHours: stream.negativeDuration / 3600,
                                   falseAlarmTimes: [inHum, inHum + 2_000, inPhone].map { Double($0) / 16_000 }, missedKeywords: [])
        let rows = Evaluation.bySource(point, in: stream)
        #expect(rows.map(\.source) == ["read", "phone", "hum"] && rows.map(\.falseAlarms) == [0, 1, 2])
        #expect(abs(rows[2].perHour - 2 / (Double(4 * 3 * 16_000 + 320) / 16_000 / 3600)) < 1e-6)
    }

    /// With `keywordPause` each keyword follows the speech before it that closely, measured from
    /// speech to speech (the clips' own silences count); without it the pauses are the usual ones.
    @Test func keywordsCanFollowSpeechClosely() {
        let silence = [Float](repeating: 0, count: 1_600)  // 0.1 s around every clip's tone
        let keywords = clips(8, seconds: 0.5, offset: 0).map { silence + $0 + silence }
        let negatives = clips(16, seconds: 1, offset: 10).map { silence + $0 + silence }
        func gaps(_ pause: ClosedRange<Double>?) -> [Double] {
            let stream = EvaluationStream(positives: keywords, negatives: negatives, noise: [], snr: nil,
                                          keywordPause: pause, seed: 4, passes: 2)
            return stream.keywordRanges.compactMap { range -> Double? in
                let before = stream.samples[..<(range.lowerBound + 1_600)]
                guard let lastSpeech = before.lastIndex(where: { $0 != 0 }) else { return nil }
                return Double(range.lowerBound + 1_600 - lastSpeech - 1) / 16_000
            }
        }
        let close = gaps(0.2...0.4), usual = gaps(nil)
        #expect(close.count == 16 && close.allSatisfy { $0 >= 0.2 - 1e-3 && $0 <= 0.4 + 1e-3 }, "\(close)")
        #expect(usual.count == 16 && usual.allSatisfy { $0 >= 1.0 - 1e-3 }, "\(usual)")
    }
}
