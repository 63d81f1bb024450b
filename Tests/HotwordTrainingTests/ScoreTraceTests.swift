import HotwordCore
@testable import HotwordTraining
import HotwordTestSupport
import Testing

@Suite struct ScoreTraceTests {
    /// A stream scored in three stretches at once gives the scores of one detector's run over the
    /// whole of it: the same times, the same values (PCEN's memory warmed up before each stretch,
    /// the network's stride of 2 kept in step, a companion network's scores met as in one run),
    /// and so the same detections at every threshold.
    @Test(arguments: [false, true]) func stretchesScoredAtOnceMatchOneRun(withCompanion: Bool) throws {
        var model = ToneModels.model(keyword: "tone", frequency: 1_000)
        model.frontend.normalisation = .perChannelEnergyDefaults
        if withCompanion {
            // A second network on 30 ms frames: stretches start where both networks' outputs fall.
            var companion = ToneModels.model(keyword: "tone", frequency: 2_500)
            companion.frontend.frameShift = 480
            model.companion = CompanionNetwork(frontend: companion.frontend, layers: companion.layers)
            #expect(model.outputShift == 960)
        }
        let tones = stride(from: 3.0, to: 400, by: 7.3).map { (start: $0, frequency: $0.truncatingRemainder(dividingBy: 2) < 1 ? 1_000.0 : 2_500) }
        let stream = EvaluationStream(positives: [], negatives: [ToneModels.signal(seconds: 400, tones: tones)], noise: [], snr: nil, seed: 1)

        let detector = try Detector(models: [model])
        var oneRun: [ScoreEvent] = []
        detector.onScore = { oneRun.append($0) }
        _ = detector.process(stream.samples)
        let trace = try ScoreTrace(model, stream: stream, pieces: 3)

        #expect(stream.samples.count / ScoreTrace.warmUp(for: model) >= 6, "room for three stretches")
        #expect(trace.scores.map(\.time) == oneRun.map(\.time))
        let worst = zip(trace.scores, oneRun).map { abs($0.raw - $1.raw) }.max() ?? .infinity
        #expect(worst < 1e-5, "largest difference \(worst)")
        // The PCEN frontend moves this hand-built model's scores: thresholds from their own tail.
        let ranked = oneRun.map(\.raw).sorted()
        let thresholds = [0.5, 0.9, 0.99].map { ranked[Int($0 * Double(ranked.count))] }
        let replayed = try Detector.replay(trace.scores, keyword: "tone", of: model, thresholds: thresholds)
        let expected = try Detector.replay(oneRun, keyword: "tone", of: model, thresholds: thresholds)
        #expect(replayed.map { $0.map(\.time) } == expected.map { $0.map(\.time) })
        #expect(expected[2].count > 5, "the loudest scores trigger: \(expected.map(\.count)) detections")
    }
}
