import HotwordAssistant
import HotwordAudio
import HotwordCore

/// `detect --check-phrase` over one file: each detection is held back until the second after
/// it has been read, then kept only if its keyword's phrase spotter hears the phrase in the
/// window around it (`CheckedWindow`). Only the last few seconds of audio are kept (a ring), so
/// memory stays flat however long the file is.
final class PhraseCheckedDetections {
    struct Verdict {
        var detection: Detection
        var kept: Bool
    }

    private let spotters: [String: PhraseSpotter]
    private let ring: SampleRing
    private var window: [Float]
    /// Detections whose window is not complete yet, oldest first.
    private var pending: [Detection] = []
    /// Samples go into the ring in pieces no longer than this, and pending windows are checked
    /// after each piece, so none has been overwritten by the time it is checked.
    private static let piece = 4_096
    private static let windowLength = Int((CheckedWindow.before + CheckedWindow.after) * Double(AudioFormat.sampleRate)) + 1

    init(spotters: [String: PhraseSpotter]) {
        self.spotters = spotters
        ring = SampleRing(minimumCapacity: Self.windowLength + Self.piece)
        window = [Float](repeating: 0, count: Self.windowLength)
    }

    /// Takes the file's next samples and the detections found in them; returns the verdicts on
    /// the detections whose window is now complete, in order.
    func append(_ samples: [Float], detections: [Detection]) throws -> [Verdict] {
        pending += detections
        var verdicts: [Verdict] = []
        for start in stride(from: 0, to: samples.count, by: Self.piece) {
            samples[start..<min(start + Self.piece, samples.count)].withUnsafeBufferPointer { ring.write($0) }
            while let next = pending.first, CheckedWindow.end(of: next.time, sampleRate: AudioFormat.sampleRate) <= Int(ring.totalWritten) {
                verdicts.append(try check(pending.removeFirst()))
            }
        }
        return verdicts
    }

    /// At the end of the file: the verdicts on the detections still waiting, each judged on
    /// the audio there is.
    func finish() throws -> [Verdict] {
        defer { pending.removeAll() }
        return try pending.map(check)
    }

    private func check(_ detection: Detection) throws -> Verdict {
        let range = CheckedWindow.samples(around: detection.time, sampleRate: AudioFormat.sampleRate, available: Int(ring.totalWritten))
        let span = window.withUnsafeMutableBufferPointer { ring.readLast(range.count, endingAt: UInt64(range.upperBound), into: $0) }
        // A keyword without a spotter is not checked.
        let heard = try spotters[detection.keyword]?.hears(Array(window.prefix(span.count))) ?? true
        return Verdict(detection: detection, kept: heard)
    }
}
