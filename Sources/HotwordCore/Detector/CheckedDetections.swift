/// A stream's detections held back until the audio after each has come, then kept or dropped
/// by their keyword's second stage (`DetectionCheck`) on the window around it (`CheckedWindow`):
/// for files (`hotword detect`) and network streams (`hotword serve`), where the detector's
/// caller does not record a question. A keyword without a check is kept at once. Only the last
/// few seconds of audio are kept, so memory stays flat however long the stream is.
public final class CheckedDetections {
    public struct Verdict: Sendable, Equatable {
        public var detection: Detection
        public var kept: Bool
        /// Why the check failed, if it did: such a detection is kept (a broken second stage must
        /// not silence the detector).
        public var failure: String?
    }

    private let checks: [String: any DetectionCheck]
    /// The last `recent.count` samples of the stream, in a circle: sample n at n % count.
    private var recent: [Float]
    private var written = 0
    /// Detections whose window is not complete yet, oldest first.
    private var pending: [Detection] = []

    /// The samples a window spans, and the most `append` may be handed at a time without a
    /// pending window being overwritten before it is checked.
    private static let windowLength = Int((CheckedWindow.before + CheckedWindow.after) * Double(AudioFormat.sampleRate)) + 1
    private static let piece = 4_096

    public init(checks: [String: any DetectionCheck]) {
        self.checks = checks
        recent = [Float](repeating: 0, count: Self.windowLength + Self.piece)
    }

    /// Takes the stream's next samples and the detections found in them; returns the verdicts on
    /// the detections whose window is now complete (and on those without a check), in order.
    public func append(_ samples: [Float], detections: [Detection]) -> [Verdict] {
        var verdicts: [Verdict] = []
        for detection in detections {
            if checks[detection.keyword] == nil {
                verdicts.append(Verdict(detection: detection, kept: true))
            } else {
                pending.append(detection)
            }
        }
        for start in stride(from: 0, to: samples.count, by: Self.piece) {
            for sample in samples[start..<min(start + Self.piece, samples.count)] {
                recent[written % recent.count] = sample
                written += 1
            }
            while let next = pending.first, CheckedWindow.end(of: next.time, sampleRate: AudioFormat.sampleRate) <= written {
                verdicts.append(check(pending.removeFirst()))
            }
        }
        return verdicts
    }

    /// At the end of the stream: the verdicts on the detections still waiting, each judged on
    /// the audio there is. The next stream starts afresh.
    public func finish() -> [Verdict] {
        defer {
            pending.removeAll()
            written = 0
        }
        return pending.map(check)
    }

    private func check(_ detection: Detection) -> Verdict {
        let range = CheckedWindow.samples(around: detection.time, sampleRate: AudioFormat.sampleRate, available: written)
        let kept = max(range.lowerBound, written - recent.count)..<range.upperBound
        let window = kept.map { recent[$0 % recent.count] }
        do {
            return Verdict(detection: detection, kept: try checks[detection.keyword]?.accepts([window]).first ?? true)
        } catch {
            return Verdict(detection: detection, kept: true, failure: "\(error)")
        }
    }
}
