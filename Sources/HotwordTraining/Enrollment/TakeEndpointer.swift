import Foundation
import HotwordCore

/// Cuts takes of a wake word out of a microphone's stream for `hotword enroll`, with the
/// assistant's voice-activity endpointing: a take starts with speech and ends 0.6 s after it.
/// It first hears the quiet room (`backgroundSeconds`), which sets the noise floor and is kept
/// as background noise for training. Used from one thread.
public final class TakeEndpointer {
    /// How long the quiet room is listened to before the first take.
    public static let backgroundSeconds = 1.5
    /// A room louder than this (dBFS RMS) is worth a warning: takes will struggle to stand out.
    public static let noisyRoomDecibels: Float = -35

    /// How a take ends: 0.6 s after the speech; nobody speaking for 8 s is a microphone problem.
    public static var endpointing: RecordingSettings {
        var settings = RecordingSettings()
        settings.preRollSeconds = 0
        settings.trailingSilenceSeconds = 0.6
        settings.noSpeechTimeoutSeconds = 8
        // Counted from the prompt: the waiting time plus the longest take worth cutting out.
        settings.maxLengthSeconds = settings.noSpeechTimeoutSeconds + 4
        return settings
    }

    public enum Outcome {
        /// Speech that ended with silence.
        case take(Utterance)
        /// Speech that did not end within `endpointing.maxLengthSeconds`.
        case endless
        /// Nobody spoke within `endpointing.noSpeechTimeoutSeconds`.
        case noSpeech
        /// The stream ended.
        case interrupted
    }

    /// The room's level while quiet, dBFS RMS.
    public let roomDecibels: Float
    private let recorder = UtteranceRecorder(settings: TakeEndpointer.endpointing)
    private var chunk = [Float](repeating: 0, count: 512)

    /// - Parameter background: `backgroundSeconds` of the quiet room.
    public init(background: [Float]) {
        roomDecibels = 20 * log10(max(Mixing.rms(background[...]), 1e-6))
        background.withUnsafeBufferPointer { recorder.listen($0) }
    }

    public var roomIsNoisy: Bool { roomDecibels > Self.noisyRoomDecibels }

    /// Reads with `read` (which fills a buffer and returns how much it filled, 0 when the stream
    /// has ended) until the endpointer has a take or gives up.
    public func nextTake(read: (UnsafeMutableBufferPointer<Float>) -> Int) -> Outcome {
        recorder.start(preRoll: UnsafeBufferPointer(start: nil, count: 0), afterWakeWord: false)
        while true {
            let status: RecordingStatus? = chunk.withUnsafeMutableBufferPointer { buffer in
                let count = read(buffer)
                return count == 0 ? nil : recorder.record(UnsafeBufferPointer(rebasing: buffer[..<count]))
            }
            switch status {
            case nil:
                recorder.cancel()
                return .interrupted
            case .finished(let utterance, _): return utterance.end == .maxLength ? .endless : .take(utterance)
            case .noSpeech: return .noSpeech
            case .recording, .speechStarted: continue
            }
        }
    }
}
