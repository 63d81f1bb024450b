/// A second stage that lets the network vouch for itself: a window in which the keyword's model,
/// heard afresh, scores at least `sureScore` stands without asking `check`; the others are
/// asked. A network trained from synthetic voices scores many people too low to be sure of them
/// (so the check hears those), but what it scores very high — higher than anything in hours of
/// speech without the keyword — is the keyword far more often than pocketsphinx, learnt from
/// other voices and microphones, is sure of it (docs/training.md, "A network sure of itself").
public struct CheckUnlessSure: DetectionCheck {
    public let check: any DetectionCheck
    public let model: KeywordModel
    public let keyword: String
    /// The smoothed score, in (0, 1], at or above which the network's word stands alone.
    public let sureScore: Float

    public init(check: any DetectionCheck, model: KeywordModel, keyword: String, sureScore: Float) {
        self.check = check
        self.model = model
        self.keyword = keyword
        self.sureScore = sureScore
    }

    public func accepts(_ windows: [[Float]]) throws -> [Bool] {
        var verdicts = try windows.map { try peakScore(in: $0) >= sureScore }
        let unsure = verdicts.indices.filter { !verdicts[$0] }
        for (index, accepted) in zip(unsure, try check.accepts(unsure.map { windows[$0] })) {
            verdicts[index] = accepted
        }
        return verdicts
    }

    /// The highest smoothed score of the keyword in `window`, heard by a fresh detector (its
    /// warm-up ignored, as always: a 3 s window's scores cover its last second and a bit).
    public func peakScore(in window: [Float]) throws -> Float {
        let detector = try Detector(models: [model])
        let warmup = model.warmupOutputs
        var outputs = 0, peak: Float = 0
        detector.onScore = { score in
            guard score.keyword == keyword else { return }
            outputs += 1
            if outputs > warmup { peak = max(peak, score.smoothed) }
        }
        _ = detector.process(window)
        return peak
    }
}

extension KeywordModel {
    /// `check` as this model asks it to be run for `keyword`: unless the network is sure where
    /// the model names how sure (`PhraseCheckDefaults.sureScore`), else on every detection.
    public func secondStage(_ check: any DetectionCheck, for keyword: String) -> any DetectionCheck {
        guard let sureScore = detection.phraseCheck?.sureScore else { return check }
        return CheckUnlessSure(check: check, model: self, keyword: keyword, sureScore: sureScore)
    }

    /// Each keyword's check (`checks`, by keyword) as the model of `models` with that keyword asks
    /// it to be run (a keyword no model has keeps its check, for the detector to refuse).
    public static func secondStages(_ checks: [String: any DetectionCheck], of models: [KeywordModel]) -> [String: any DetectionCheck] {
        var stages = checks
        for model in models {
            for keyword in model.keywords {
                if let check = checks[keyword] { stages[keyword] = model.secondStage(check, for: keyword) }
            }
        }
        return stages
    }
}
