import Foundation
@testable import HotwordCore
import HotwordTestSupport
import Testing

/// The cascade (`CompanionGate`): a pair whose companion, a head on the speech embedding, is heard
/// only while the first network's score passes the gate — and then exactly as if it ran always.
@Suite struct CascadeTests {
    static let first = CascadeModels.first
    static let head = CascadeModels.head
    static func pair(gate: CompanionGate?) -> KeywordModel { CascadeModels.pair(gate: gate) }
    /// Opens where the tone model scores above ½ (its tones), for a second after: the random head
    /// lifts the pair's score over its threshold only once it has heard the whole tone.
    static let toneGate = CompanionGate(logit: 0, holdSeconds: 1)
    static let signal = ToneModels.signal(seconds: 30, tones: [(1, 1_000), (2.5, 1_500), (4.2, 1_000), (7.5, 1_000), (14, 1_000)])

    static func run(_ model: KeywordModel, chunks: Int = 1_600) throws -> (scores: [ScoreEvent], detections: [Detection], cascade: CascadeCounts) {
        let detector = try Detector(models: [model])
        var scores: [ScoreEvent] = [], detections: [Detection] = []
        detector.onScore = { scores.append($0) }
        for start in stride(from: 0, to: signal.count, by: chunks) {
            detections += detector.process(Array(signal[start..<min(start + chunks, signal.count)]))
        }
        return (scores, detections, detector.cascade)
    }

    static func largestDifference(_ a: [ScoreEvent], _ b: [ScoreEvent]) -> Float {
        zip(a, b).map { abs($0.raw - $1.raw) }.max() ?? .infinity
    }

    /// A gate open at every output gives exactly the ungated pair's scores and detections, and an
    /// ungated pair's are the first network's and the head's alone, fused (its head run on
    /// demand computes what a head on every embedding does).
    @Test func aWideOpenGateScoresAsNoGate() throws {
        let ungated = try Self.run(Self.pair(gate: nil))
        let open = try Self.run(Self.pair(gate: CompanionGate(logit: -CompanionGate.logitLimit, holdSeconds: 0)))
        #expect(open.scores.count == ungated.scores.count && ungated.scores.count > 300)
        #expect(open.scores.map(\.time) == ungated.scores.map(\.time))
        #expect(Self.largestDifference(open.scores, ungated.scores) < 1e-6)
        #expect(open.detections == ungated.detections && !ungated.detections.isEmpty)
        // Every window but the last, whose partner scores still wait for the next.
        #expect(open.cascade.openShare == 1 && open.cascade.embeddings == open.cascade.windows - 1)

        // Each network alone, fused by hand: the same scores.
        let firstAlone = try Self.run(Self.first).scores, headAlone = try Self.run(Self.head).scores
        var worst: Float = 0
        for fused in ungated.scores where fused.time >= 0.025 {
            let mine = try #require(firstAlone.first { $0.time == fused.time })
            let partner = headAlone.last { $0.time <= fused.time }?.raw ?? 0
            worst = max(worst, abs(fused.raw - LogitFusion.fuse(first: mine.raw, companion: partner, weight: 0.5)))
            #expect(fused.firstNetwork == mine.raw)
        }
        #expect(worst < 1e-5, "largest difference \(worst)")
    }

    /// A gate that never opens computes no embedding and runs no head; the scores are the first
    /// network's under the companion's floor.
    @Test func aClosedGateComputesNoEmbedding() throws {
        let closed = try Self.run(Self.pair(gate: CompanionGate(logit: CompanionGate.logitLimit, holdSeconds: 0)))
        #expect(closed.cascade.windows > 90)
        #expect(closed.cascade.embeddings == 0 && closed.cascade.companionSteps == 0 && closed.cascade.gateOpenOutputs == 0)
        for score in closed.scores {
            #expect(score.raw == LogitFusion.fuse(first: score.firstNetwork!, companion: 0, weight: 0.5))
        }
        #expect(closed.detections.isEmpty)
    }

    /// Gated on the tone, the companion is heard around the tones only: where the gate is open the
    /// scores are the ungated pair's (the skipped embeddings caught up on), elsewhere the first
    /// network's under the floor — what `CompanionGate.gatedScores` replays from an ungated run.
    @Test func aGatedPairScoresAsItsReplayAndComputesLess() throws {
        let ungated = try Self.run(Self.pair(gate: nil))
        let gated = try Self.run(Self.pair(gate: Self.toneGate))
        let replayed = Self.toneGate.gatedScores(ungated.scores, weight: 0.5)
        #expect(gated.scores.map(\.time) == replayed.scores.map(\.time))
        #expect(Self.largestDifference(gated.scores, replayed.scores) < 1e-5)
        // The detector also counts the outputs still waiting for the companion's next score.
        #expect(abs(gated.cascade.openShare - replayed.openShare) < 1e-2)
        #expect(gated.cascade.openShare > 0.05 && gated.cascade.openShare < 0.5, "open \(gated.cascade.openShare)")
        #expect(gated.cascade.embeddings < gated.cascade.windows / 2 && gated.cascade.embeddings > 0)
        #expect(gated.cascade.wholeEmbeddings >= 3, "each opening catches up from a whole window: \(gated.cascade.wholeEmbeddings)")
        #expect(gated.detections == ungated.detections, "the tones that wake it open the gate")
        // Chunking changes nothing.
        #expect(try Self.run(Self.pair(gate: Self.toneGate), chunks: 333).scores == gated.scores)
    }

    /// Windows embedded late — the missing ones at once, after others were skipped — are the
    /// windows a stream embeds as they come.
    @Test func aCatchUpEmbedsAsStreamingAllAlong() {
        let network = CascadeModels.embedding
        var rng = SeededGenerator(seed: 4)
        let frames = (0..<(70 * network.hopFrames)).map { _ in (0..<network.melBands).map { _ in Float.random(in: -12 ... -2, using: &rng) } }
        let streaming = SpeechEmbeddingStream(network: network)
        var streamed: [[Float]] = []
        for frame in frames { frame.withUnsafeBufferPointer { streaming.push($0) { streamed.append(Array($0)) } } }

        let lazy = SpeechEmbeddingStream(network: network, keptWindows: 20)
        var caughtUp: [Int: [Float]] = [:]
        for frame in frames {
            guard frame.withUnsafeBufferPointer({ lazy.append($0) }) else { continue }
            let newest = lazy.windowsCompleted - 1
            // Skip most windows; now and then catch up on the last 16.
            if newest % 25 == 24 { for window in (newest - 15)...newest { caughtUp[window] = Array(lazy.embedding(at: window)) } }
        }
        #expect(streamed.count == 61 && caughtUp.count == 32)
        #expect(lazy.embeddingsComputed == 32 && lazy.embeddingsComputedWhole == 2)
        let largest = streamed.flatMap { $0 }.map(abs).max()!
        let worst = caughtUp.map { window, values in zip(values, streamed[window]).map { abs($0 - $1) }.max()! }.max()!
        #expect(worst < 1e-5 * largest, "largest difference \(worst)")
    }

    /// A file without a gate — every pair written before gates — reads as no gate and runs ungated;
    /// a gate round-trips.
    @Test func filesWithoutAGateLoadUngatedAndAGateRoundTrips() throws {
        let plain = try ModelFile.encode(Self.pair(gate: nil))
        #expect(!String(decoding: plain, as: UTF8.self).contains("\"gate\""))
        #expect(try ModelFile.decode(plain).companion?.gate == nil)
        let gated = try ModelFile.encode(Self.pair(gate: Self.toneGate))
        #expect(gated[4] == 2, "the same version: a reader without gates runs the pair ungated, at the same threshold")
        #expect(try ModelFile.decode(gated) == Self.pair(gate: Self.toneGate))
        let shipped = try ModelFile.decode(Array(Data(contentsOf: TestPaths.projectRoot.appendingPathComponent("Models/computer.hwks"))))
        #expect(shipped.companion != nil)
    }

    @Test func aBadGateIsRefusedNamingTheField() throws {
        #expect { try ModelFile.encode(Self.pair(gate: CompanionGate(logit: .nan, holdSeconds: 0.2))) }
            throws: { "\($0)".contains("companion.gate.logit") }
        #expect { try ModelFile.encode(Self.pair(gate: CompanionGate(logit: 40, holdSeconds: 0.2))) }
            throws: { "\($0)".contains("companion.gate.logit") }
        #expect { try Detector(models: [Self.pair(gate: CompanionGate(logit: 0, holdSeconds: -1))]) }
            throws: { "\($0)".contains("companion.gate.holdSeconds") }
        // A file edited to hold a bad value, its checksum made good again.
        let bytes = try ModelFile.encode(Self.pair(gate: CompanionGate(logit: 0, holdSeconds: 0.25)))
        let field = Array("\"holdSeconds\" : 0.25".utf8)
        let at = try #require((0...(bytes.count - field.count)).first { Array(bytes[$0..<($0 + field.count)]) == field })
        var edited = bytes
        edited[at + field.count - 4] = UInt8(ascii: "9")
        let fixed = Array(edited.dropLast(4)) + ModelFileTests().crc32LittleEndian(Array(edited.dropLast(4)))
        #expect { try ModelFile.decode(fixed) } throws: { "\($0)".contains("companion.gate.holdSeconds 9.25") }
        // Only a companion on the speech embedding can be caught up on.
        var toneCompanion = CompanionNetworkTests.pair
        toneCompanion.companion!.gate = Self.toneGate
        #expect { try ModelFile.encode(toneCompanion) } throws: { "\($0)".contains("companion.gate: the cascade needs") }
    }
}
