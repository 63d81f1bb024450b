import HotwordCore
@testable import HotwordTraining
import HotwordTestSupport
import Testing

@Suite struct GateTuningTests {
    /// `tune --gate-miss-budget`: of the candidate gates, the highest before the first that misses
    /// more than the budget over the ungated pair, or counts more false alarms, at the threshold.
    @Test func theChosenGateIsTheHighestWithinTheBudget() throws {
        let pair = CascadeModels.pair(gate: nil, threshold: 0.25)
        let keyword = ToneModels.signal(seconds: 2.5, tones: [(0.8, 1_000)])
        let negatives = (0..<6).map { i in ToneModels.signal(seconds: 10, tones: [(2, 1_500), (6, i % 2 == 0 ? 1_000 : 2_000)]) }
        let stream = EvaluationStream(positives: Array(repeating: keyword, count: 8), negatives: negatives, noise: [], snr: nil, seed: 2)
        let trace = try ScoreTrace(pair, stream: stream)
        let budget = 0.1, hold: Float = 0.3
        let choice = try GateTuning.choose(pair, trace: trace, threshold: 0.25, missBudget: budget, holdSeconds: hold)
        func withinBudget(_ point: OperatingPoint) -> Bool {
            point.missRate <= choice.ungated.missRate + budget && point.falseAlarms <= choice.ungated.falseAlarms
        }
        #expect(choice.ungated.keywords == 8 && choice.ungated.misses < 8, "the pair hears some: \(choice.ungated.misses) missed")
        #expect(withinBudget(choice.gated))
        #expect(choice.openShare > 0 && choice.openShare < 0.5, "open \(choice.openShare)")
        for logit in GateTuning.candidateLogits where logit <= choice.gate.logit + 0.5 {
            let gated = trace.gated(by: CompanionGate(logit: logit, holdSeconds: hold), weight: 0.5).trace
            let point = try Evaluation.thresholdSweep(pair, over: gated, thresholds: [0.25])[0]
            #expect(withinBudget(point) == (logit <= choice.gate.logit), "logit \(logit)")
        }
        #expect(throws: GateTuning.Failure.self) {
            try GateTuning.choose(CascadeModels.first, trace: trace, threshold: 0.25, missBudget: budget, holdSeconds: hold)
        }
    }
}
