import Foundation
import HotwordAudio
import HotwordCore
import HotwordTraining

/// Records takes of a wake word from a microphone for `hotword enroll`: listens to the quiet
/// room first (saved as background noise for training), then prompts for each take, cuts it
/// out (`TakeEndpointer`), checks it (`TakeRules`) and saves it, or says why not and asks
/// again. Ctrl-C stops and keeps the takes saved so far.
struct TakeRecorder {
    let keyword: String
    let device: String
    let folder: EnrollmentFolder
    var rules = TakeRules()

    /// Records until `count` takes are saved; prints prompts and verdicts through `say`.
    /// Returns the number saved, fewer than `count` when Ctrl-C stopped it.
    func record(count: Int, say: (String) -> Void) throws -> Int {
        // Ctrl-C ends the blocked read; training afterwards is stopped the usual way.
        let microphone = try InterruptibleCapture(device: device)
        defer { microphone.close() }
        let capture = microphone.capture

        say("Recording from '\(device)'. Stay quiet for a moment while I listen to the room…")
        var background = [Float](repeating: 0, count: Int(TakeEndpointer.backgroundSeconds * Double(AudioFormat.sampleRate)))
        guard capture.read(into: &background) == background.count else { return 0 }
        try folder.saveBackground(background)
        let endpointer = TakeEndpointer(background: background)
        let roomLevel = endpointer.roomDecibels
        if endpointer.roomIsNoisy {
            say("The room is loud (\(format(Double(roomLevel), 0)) dBFS): takes may be rejected as too noisy; somewhere quieter helps.")
        }

        var durations = try folder.takeSpeechSeconds()
        var saved = 0, rejected = 0
        let allowedRejections = max(6, 2 * count)
        while saved < count {
            say("Say \"\(keyword)\" (\(saved + 1) of \(count))…")
            let problem: String
            switch endpointer.nextTake(read: capture.read(into:)) {
            case .interrupted:
                return saved
            case .noSpeech:
                throw CommandFailure("heard nothing for \(format(TakeEndpointer.endpointing.noSpeechTimeoutSeconds, 0)) s from '\(device)' "
                    + "(room at \(format(Double(roomLevel), 0)) dBFS): check the microphone and its level with "
                    + "`hotword record test.wav --seconds 3 --device \(device)`; \(saved) new takes were saved in \(folder.takes.path)")
            case .endless:
                problem = "did not hear you stop within \(format(TakeEndpointer.endpointing.maxLengthSeconds, 0)) s: say only the wake word, somewhere quieter"
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
}
