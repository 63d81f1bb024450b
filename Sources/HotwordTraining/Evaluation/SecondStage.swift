import HotwordCore

extension Evaluation {
    /// `detections` (one list per threshold, lowest threshold first) without those `check` rejects.
    /// A detection at a higher threshold is the same utterance as the latest one at the lowest
    /// threshold before it (its score crossed the lower threshold first), so only the lowest
    /// threshold's detections are checked: one window per utterance, not one per threshold.
    static func keepingAccepted(_ detections: [[Detection]], stream: EvaluationStream, check: any DetectionCheck) throws -> [[Detection]] {
        guard let anchors = detections.first else { return detections }
        let windows = anchors.map { detection in
            Array(stream.samples[CheckedWindow.samples(around: detection.time, sampleRate: stream.sampleRate, available: stream.samples.count)])
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
