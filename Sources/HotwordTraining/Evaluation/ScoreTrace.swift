import Foundation
import HotwordCore

/// One keyword model's network scores over an evaluation stream. The network is the slow part of
/// an evaluation (a speech-embedding model's the more so); triggering is cheap, so every sweep of
/// thresholds or sensitivities replays this one pass (`Detector.replay`).
public struct ScoreTrace: Sendable {
    public let stream: EvaluationStream
    public let keyword: String
    /// The keyword's raw scores in time order, as one detector run over the whole stream gives them.
    public let scores: [ScoreEvent]

    /// Scores `stream` in up to `pieces` stretches at once, one thread each. A stretch starts
    /// `warmUp(for:)` early on a fresh detector, whose scores there are dropped: by its own first
    /// frame the frontend's memory (PCEN, a running mean) has forgotten where it started, so the
    /// trace matches one detector's run over the whole stream to float rounding. Stretches start
    /// on a network output of the whole run (of both networks, for a model with a companion), so
    /// frames and strides line up; each runs on past its end until the companion's next score
    /// has settled its last fused ones (`LogitFusion`).
    public init(_ model: KeywordModel, stream: EvaluationStream,
                pieces: Int = ProcessInfo.processInfo.activeProcessorCount) throws(DetectorError) {
        let keyword = model.keywords[0]
        let warmUp = Self.warmUp(for: model)
        let outputShift = model.outputShift
        // A stretch at least twice as long as its warm-up, or the warm-ups cost more than they save.
        let count = max(1, min(pieces, stream.samples.count / max(2 * warmUp, 1)))
        let length = (stream.samples.count / count + outputShift - 1) / outputShift * outputShift
        let starts = (0..<count).map { $0 * length }
        _ = try Detector(models: [model])  // validates the model once, so the stretches below cannot fail
        let rate = Double(stream.sampleRate)
        let stretches = ParallelFor.map(count, threads: count) { index -> [ScoreEvent] in
            let start = starts[index], end = min(start + length, stream.samples.count)
            let overrun = min(end + outputShift, stream.samples.count)
            let lead = min(start, (warmUp + outputShift - 1) / outputShift * outputShift)
            let detector = try! Detector(models: [model])
            var scores: [ScoreEvent] = []
            // A score is timed at the end of its frame. The stretch keeps those ending after its
            // start; the one before it heard every frame ending up to there.
            detector.onScore = { event in
                let frameEnd = Int((event.time * rate).rounded()) + start - lead
                guard event.keyword == keyword, frameEnd > start || start == 0, frameEnd <= end else { return }
                var event = event
                event.time = Double(frameEnd) / rate
                scores.append(event)
            }
            stream.samples[(start - lead)..<overrun].withUnsafeBufferPointer { _ = detector.process($0) }
            return scores
        }
        self.stream = stream
        self.keyword = keyword
        scores = Array(stretches.joined())
    }

    private init(stream: EvaluationStream, keyword: String, scores: [ScoreEvent]) {
        self.stream = stream
        self.keyword = keyword
        self.scores = scores
    }

    /// The trace of the same pair run through `gate`, from this one of it ungated
    /// (`CompanionGate.gatedScores`), and the share of its first network's outputs at which the
    /// gate was open. The gate reads the traced keyword alone (a model's only one, as shipped).
    public func gated(by gate: CompanionGate, weight: Float) -> (trace: ScoreTrace, openShare: Double) {
        let (gated, openShare) = gate.gatedScores(scores, weight: weight)
        return (ScoreTrace(stream: stream, keyword: keyword, scores: gated), openShare)
    }

    /// Audio a fresh detector hears before its scores count: a minute, or sixty time constants of
    /// the frontend's memory where that is longer (e^−60 is below float precision).
    static func warmUp(for model: KeywordModel) -> Int {
        if let companion = model.companionModel { return max(warmUp(for: model.withoutCompanion), warmUp(for: companion)) }
        let memory: Float
        switch model.frontend.normalisation {
        case .none: memory = 0
        case .runningMean(let timeConstant), .perChannelEnergy(let timeConstant, _, _, _, _): memory = timeConstant
        }
        return Int(max(60, 60 * Double(memory)) * Double(model.frontend.sampleRate))
    }
}
