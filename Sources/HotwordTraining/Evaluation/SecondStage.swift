import HotwordCore

/// A second opinion on a detection, asked of the audio around it: a check that runs only on
/// the detector's candidates, so it may cost far more per second of audio than the detector.
public protocol DetectionCheck: Sendable {
    /// Whether each window of 16 kHz mono audio holds the keyword.
    func accepts(_ windows: [[Float]]) throws -> [Bool]
}

/// pocketsphinx spotting the phrase (acoustic model learnt from many real speakers) as the
/// second opinion: its errors owe nothing to the voices a keyword model was trained on.
public struct PhraseSpotting: DetectionCheck {
    public let check: KeywordCheck
    public let jobs: Int

    public init(_ check: KeywordCheck, jobs: Int) {
        self.check = check
        self.jobs = jobs
    }

    public func accepts(_ windows: [[Float]]) throws -> [Bool] { try check.hears(windows, jobs: jobs) }
}

extension Evaluation {
    /// The audio a second stage hears: this long before a detection…
    public static let checkedBefore = 2.0
    /// …and this long after it (a detection fires before the keyword has ended).
    public static let checkedAfter = 1.0

    /// `detections` (one list per threshold, lowest threshold first) without those `check` rejects.
    /// A detection at a higher threshold is the same utterance as the latest one at the lowest
    /// threshold before it (its score crossed the lower threshold first), so only the lowest
    /// threshold's detections are checked: one window per utterance, not one per threshold.
    static func keepingAccepted(_ detections: [[Detection]], stream: EvaluationStream, check: any DetectionCheck) throws -> [[Detection]] {
        guard let anchors = detections.first else { return detections }
        let rate = Double(stream.sampleRate)
        let windows = anchors.map { detection in
            let start = max(0, Int((detection.time - checkedBefore) * rate))
            let end = min(stream.samples.count, Int((detection.time + checkedAfter) * rate))
            return Array(stream.samples[start..<max(start, end)])
        }
        let accepted = try check.accepts(windows)
        return detections.map { found in
            // Both lists are in time order: walk the anchors alongside.
            var next = 0
            return found.filter { detection in
                while next < anchors.count && anchors[next].time <= detection.time { next += 1 }
                // No anchor before it: its score never crossed the lowest threshold first, which
                // one score trace cannot do.
                return next > 0 && accepted[next - 1]
            }
        }
    }
}
