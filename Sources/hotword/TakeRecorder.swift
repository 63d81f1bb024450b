import Foundation
import HotwordAssistant
import HotwordAudio
import HotwordTraining

/// Records takes of a wake word from a microphone for `hotword enroll`: listens to the quiet
/// room first (saved as background noise for training), then prompts for each take, cuts it
/// out with the assistant's voice-activity endpointing, checks it (`TakeRules`) and saves it,
/// or says why not and asks again. Ctrl-C stops and keeps the takes saved so far.
struct TakeRecorder {
    let keyword: String
    let device: String
    let folder: EnrollmentFolder
    var rules = TakeRules()

    static let backgroundSeconds = 1.5
    /// A room louder than this (dBFS RMS) is worth a warning: takes will struggle to stand out.
    static let noisyRoomDecibels: Float = -35

    /// How a take ends: 0.6 s after the speech; nobody speaking for 8 s is a microphone problem.
    static var endpointing: RecordingSettings {
        var settings = RecordingSettings()
        settings.preRollSeconds = 0
        settings.trailingSilenceSeconds = 0.6
        settings.noSpeechTimeoutSeconds = 8
        // Counted from the prompt: the waiting time plus the longest take worth cutting out.
        settings.maxLengthSeconds = settings.noSpeechTimeoutSeconds + 4
        return settings
    }

    private enum Outcome {
        case take(Utterance)
        case noSpeech
        case interrupted
    }

    /// Records until `count` takes are saved; prints prompts and verdicts through `say`.
    /// Returns the number saved, fewer than `count` when Ctrl-C stopped it.
    func record(count: Int, say: (String) -> Void) throws -> Int {
        // Ctrl-C ends the blocked read; training afterwards is stopped the usual way.
        let microphone = try InterruptibleCapture(device: device)
        defer { microphone.close() }
        let capture = microphone.capture

        say("Recording from '\(device)'. Stay quiet for a moment while I listen to the room…")
        var background = [Float](repeating: 0, count: Int(Self.backgroundSeconds * Double(CaptureDevice.outputSampleRate)))
        guard capture.read(into: &background) == background.count else { return 0 }
        let roomLevel = 20 * log10(max(Mixing.rms(background[...]), 1e-6))
        try folder.saveBackground(background)
        if roomLevel > Self.noisyRoomDecibels {
            say("The room is loud (\(format(Double(roomLevel), 0)) dBFS): takes may be rejected as too noisy; somewhere quieter helps.")
        }
        let recorder = UtteranceRecorder(settings: Self.endpointing)
        background.withUnsafeBufferPointer { recorder.listen($0) }

        var durations = try folder.takeSpeechSeconds()
        var saved = 0, rejected = 0
        let allowedRejections = max(6, 2 * count)
        while saved < count {
            say("Say \"\(keyword)\" (\(saved + 1) of \(count))…")
            let problem: String
            switch nextTake(capture, recorder) {
            case .interrupted:
                return saved
            case .noSpeech:
                throw CommandFailure("heard nothing for \(format(Self.endpointing.noSpeechTimeoutSeconds, 0)) s from '\(device)' "
                    + "(room at \(format(Double(roomLevel), 0)) dBFS): check the microphone and its level with "
                    + "`hotword record test.wav --seconds 3 --device \(device)`; \(saved) new takes were saved in \(folder.takes.path)")
            case .take(let utterance) where utterance.end == .maxLength:
                problem = "did not hear you stop within \(format(Self.endpointing.maxLengthSeconds, 0)) s: say only the wake word, somewhere quieter"
            case .take(let utterance):
                do {
                    let take = try rules.check(utterance.samples, against: durations)
                    let url = try folder.save(take)
                    durations.append(take.speechSeconds)
                    saved += 1
                    say("  saved \(url.lastPathComponent): \(format(take.speechSeconds, 2)) s of speech at \(format(Double(take.levelDecibels), 0)) dBFS")
                    continue
                } catch let error as TakeProblem {
                    problem = error.description
                }
            }
            rejected += 1
            say("  not used: \(problem). Say it again.")
            if rejected >= allowedRejections {
                throw CommandFailure("\(rejected) takes were not usable (the last: \(problem)); \(saved) new takes were saved in \(folder.takes.path)")
            }
        }
        return saved
    }

    /// Reads from the microphone until the endpointer has a take (or gives up).
    private func nextTake(_ capture: CaptureDevice, _ recorder: UtteranceRecorder) -> Outcome {
        recorder.start(preRoll: UnsafeBufferPointer(start: nil, count: 0))
        var chunk = [Float](repeating: 0, count: 512)
        while true {
            let count = capture.read(into: &chunk)
            guard count > 0 else {
                recorder.cancel()
                return .interrupted
            }
            let status = chunk.withUnsafeBufferPointer { recorder.record(UnsafeBufferPointer(rebasing: $0[..<count])) }
            switch status {
            case .finished(let utterance, _): return .take(utterance)
            case .noSpeech: return .noSpeech
            case .recording, .speechStarted: continue
            }
        }
    }
}
