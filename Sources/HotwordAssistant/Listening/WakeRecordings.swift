import Dispatch
import Foundation
import HotwordAudio
import HotwordCore
import Logging

/// Keeps every wake as a WAV file (`[recording] keep_dir`), so that false alarms can be
/// listened to and fed back into training (`hotword train --false-alarms DIR`).
///
/// A file holds the audio the detector heard when it fired (its receptive field, and half a
/// second before), then the question — or the silence waited through when none came — as
/// 16 kHz mono 16-bit WAV, named by the time of the wake (UTC) and the keyword:
/// `20250122T153012.345Z-hey_susi.wav`. Files are written one after another on a queue of
/// their own, never on the audio threads, and atomically: a full disk costs that one
/// recording (logged, naming the file) and leaves no partial file.
final class WakeRecordings: Sendable {
    let directory: URL
    private let queue = DispatchQueue(label: "hotword.wake-recordings", qos: .utility)
    private let logger = Logger(label: "hotword.recordings")

    /// Creates `directory` (and its parents) if needed.
    init(directory: String) throws(AssistantError) {
        self.directory = URL(fileURLWithPath: directory, isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: self.directory, withIntermediateDirectories: true)
        } catch {
            throw .keepDirectory(path: directory, reason: (error as NSError).localizedDescription)
        }
    }

    /// Copies the audio of `wake` out of `ring` while it still holds it (of a recording longer
    /// than the ring, the part it holds) and writes it in the background. The file is named by
    /// the time of the detection: as long before now as the ring's newest sample is after it.
    func keep(_ wake: WakeAudio, from ring: SampleRing) {
        var clip = [Float](repeating: 0, count: wake.positions.count)
        let kept = clip.withUnsafeMutableBufferPointer { ring.readLast($0.count, endingAt: wake.positions.upperBound, into: $0) }
        clip.removeLast(clip.count - kept.count)
        let samples = clip
        let newest = max(ring.totalWritten, wake.detection)
        let date = Date(timeIntervalSinceNow: -Double(newest - wake.detection) / Double(AudioFormat.sampleRate))
        let file = directory.appendingPathComponent(Self.fileName(keyword: wake.keyword, date: date))
        queue.async { [logger] in
            do throws(AudioFileError) {
                try AudioFileWriter.writeWAV(samples, to: file, sampleRate: AudioFormat.sampleRate)
                logger.info("wake recorded in \(file.path)")
            } catch {
                logger.error("wake recording lost: \(error)")
            }
        }
    }

    /// `20250122T153012.345Z-hey_susi.wav`: sortable, and valid on every file system (no colons);
    /// the keyword keeps its letters and digits, anything else becomes `_`.
    static func fileName(keyword: String, date: Date) -> String {
        let time = date.formatted(Date.ISO8601FormatStyle(dateSeparator: .omitted, timeSeparator: .omitted,
                                                          includingFractionalSeconds: true))
        let name = String(keyword.map { $0.isLetter || $0.isNumber ? $0 : "_" })
        return "\(time)-\(name).wav"
    }
}
