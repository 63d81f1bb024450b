import Foundation
import HotwordCore
import HotwordTestSupport
import Testing

/// A model with a companion network (`CompanionNetwork`): two networks on two front ends, one score.
@Suite struct CompanionNetworkTests {
    /// The first network hears 10 ms frames; the companion 30 ms frames of another tone, so it
    /// scores a third as often, and some of its scores fall at the first network's times.
    static let first = ToneModels.model(keyword: "beep", frequency: 1_000)
    static let companion: KeywordModel = {
        var model = ToneModels.model(keyword: "beep", frequency: 2_000)
        model.frontend.frameShift = 480
        return model
    }()
    static let pair: KeywordModel = {
        var model = first
        model.companion = CompanionNetwork(frontend: companion.frontend, layers: companion.layers, weight: 0.3)
        return model
    }()
    static let signal = ToneModels.signal(seconds: 6, tones: [(0.5, 1_000), (1.5, 2_000), (3, 1_000), (3.1, 2_000), (4.5, 1_500)])

    static func scores(of model: KeywordModel, chunks: [Int] = [signal.count]) throws -> [ScoreEvent] {
        let detector = try Detector(models: [model])
        var scores: [ScoreEvent] = []
        detector.onScore = { scores.append($0) }
        var start = 0, next = 0
        while start < signal.count {
            let end = min(start + chunks[next % chunks.count], signal.count)
            _ = detector.process(Array(signal[start..<end]))
            start = end
            next += 1
        }
        return scores
    }

    /// Each score of the pair is σ(0.7·logit(first) + 0.3·logit(companion)), the companion's being
    /// its latest at or before that time (0 before its first), at the first network's times.
    @Test func eachScoreIsTheWeightedMeanLogitOfBothNetworks() throws {
        // Compared from the stream's first frame on: each detector's lead-in is as long as its own
        // models need (`Detector.warmUpSamples`), and a pair's is the longer network's.
        let firstFrameEnd = Double(Self.first.frontend.frameLength) / 16_000
        let firstScores = try Self.scores(of: Self.first).filter { $0.time >= firstFrameEnd }
        let companionScores = try Self.scores(of: Self.companion)
        let paired = try Self.scores(of: Self.pair).filter { $0.time >= firstFrameEnd }
        func logit(_ p: Float) -> Double {
            let q = Double(min(max(p, 1e-7), 1 - 1e-7))
            return log(q / (1 - q))
        }
        // The last first-network scores wait for a companion score after them, which never comes.
        #expect(paired.count < firstScores.count && paired.count > firstScores.count - 4)
        #expect(Set(firstScores.map(\.time)).intersection(companionScores.map(\.time)).count > 10, "times that coincide are tested")
        var worst = 0.0
        for (fused, alone) in zip(paired, firstScores) {
            #expect(fused.time == alone.time)
            let partner = companionScores.last { $0.time <= alone.time }?.raw ?? 0
            let expected = 1 / (1 + exp(-(0.7 * logit(alone.raw) + 0.3 * logit(partner))))
            worst = max(worst, abs(Double(fused.raw) - expected))
        }
        #expect(worst < 1e-5, "largest difference \(worst)")
        #expect(Set(paired.map(\.raw)) != Set(firstScores.map(\.raw)), "the companion moves the scores")
        #expect(companionScores[0].time < 0, "the companion has scored in the lead-in, before the stream's first frame")
    }

    /// The two networks hear each chunk one after the other; however the audio is cut, the pair's
    /// scores and detections are the same.
    @Test func anyChunkingGivesThePairTheSameScores() throws {
        let whole = try Self.scores(of: Self.pair)
        var rng = SeededGenerator(seed: 5)
        for chunks in [[1], [160], [700], [4_096], (0..<40).map { _ in Int.random(in: 1...6_000, using: &rng) }] {
            #expect(try Self.scores(of: Self.pair, chunks: chunks) == whole, "chunks \(chunks.prefix(3))…")
        }
    }

    /// Where only one network hears its tone, the pair scores below that network alone; where
    /// both tones sound together, above either's score at a lone tone.
    @Test func thePairWakesWhereBothNetworksHear() throws {
        var quiet = Self.pair
        quiet.detection.sensitivityMap = SensitivityMap(points: [
            .init(sensitivity: 0, threshold: 0.9), .init(sensitivity: 0.5, threshold: 0.9), .init(sensitivity: 1, threshold: 0.9),
        ])
        var firstAlone = Self.first
        firstAlone.detection = quiet.detection
        let found = try Detector(models: [quiet]).process(Self.signal)
        let foundAlone = try Detector(models: [firstAlone]).process(Self.signal)
        #expect(foundAlone.count >= 2, "the first network alone wakes at its tone: \(foundAlone.map(\.time))")
        #expect(found.count == 1 && abs(found[0].time - 3.3) < 0.3, "the pair wakes where both tones sound: \(found.map(\.time))")
    }

    @Test func thePairSavesAsVersion2AndReadsBackBitExact() throws {
        let bytes = try ModelFile.encode(Self.pair)
        #expect(bytes[4] == 2)
        let loaded = try ModelFile.decode(bytes)
        #expect(loaded == Self.pair)
        #expect(try ModelFile.encode(loaded) == bytes)
        #expect(try ModelFile.encode(Self.first)[4] == 1, "a model without a companion stays version 1")
        // A version-1 reader must refuse it; a version-1 file claiming one is malformed.
        var claimingVersion1 = bytes
        claimingVersion1[4] = 1
        claimingVersion1.replaceSubrange((bytes.count - 4)..., with: ModelFileTests().crc32LittleEndian(Array(claimingVersion1.dropLast(4))))
        #expect { try ModelFile.decode(claimingVersion1) } throws: { "\($0)".contains("version 1 file with a companion network") }
    }

    @Test func invalidCompanionsAreNamedAndNeverWritten() {
        var weighty = Self.pair
        weighty.companion!.weight = 1
        #expect { try ModelFile.encode(weighty) } throws: { "\($0)" == "invalid model: companion weight 1.0 must lie strictly between 0 and 1" }
        var otherWords = Self.pair
        otherWords.companion!.layers.removeLast()
        #expect { try Detector(models: [otherWords]) } throws: { "\($0)".contains("companion network") }
        var softmax = Self.pair
        softmax.companion!.layers[1] = .dense(DenseLayer(inputs: 1, outputs: 2, activation: .softmax, weights: [1, 1], bias: [0, 0]))
        #expect { try ModelFile.encode(softmax) } throws: { "\($0)".contains("both networks to end in sigmoid") }
    }
}
