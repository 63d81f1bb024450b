/// A question cut out of the stream after a wake word.
public struct Utterance: Sendable, Equatable {
    public enum End: String, Sendable {
        /// Speech, then `trailingSilenceSeconds` without.
        case trailingSilence = "trailing_silence"
        /// `maxLengthSeconds` after the detection.
        case maxLength = "max_length"
    }

    /// 16 kHz mono, to the end: from the pre-roll when the question followed the wake word in
    /// one breath, else from just before the question started.
    public var samples: [Float]
    /// How many of `samples` come before the detection (0 when the pre-roll was dropped).
    public var preRollCount: Int
    /// Where speech was first heard, as an index into `samples`.
    public var speechStart: Int
    public var end: End

    public var duration: Double { Double(samples.count) / Double(AudioFormat.sampleRate) }
}

/// What `UtteranceRecorder.record` made of a chunk.
public enum RecordingStatus: Sendable, Equatable {
    /// Still recording; the whole chunk was taken.
    case recording
    /// The question has started (reported once); the whole chunk was taken.
    case speechStarted
    /// The utterance is complete. Only the first `consumed` samples of the chunk belong to it;
    /// the rest is audio after it.
    case finished(Utterance, consumed: Int)
    /// No speech started within the timeout; the first `consumed` samples of the chunk were
    /// waited through, the rest comes after.
    case noSpeech(consumed: Int)
}

/// Records the question after a wake word, ending it by voice activity: it starts from
/// pre-roll audio, waits for speech to start (giving up after `noSpeechTimeoutSeconds`), and
/// ends after `trailingSilenceSeconds` of non-speech or at `maxLengthSeconds`.
///
/// The pre-roll is for a question said in the same breath as the wake word: when speech goes
/// on across the detection, the utterance keeps it. When the user pauses first, it would only
/// hold the end of the wake word, which a recogniser turns into stray words ("hey susi, thank
/// you" became "was a tad too"); the utterance then starts `speechLeadSeconds` before the
/// question instead. A detector fires where its score crosses the threshold, which may be
/// before the wake word has ended: speech under way at the detection that stops for a pause
/// (`pauseSeconds`) within `wakeWordTailSeconds` is the wake word's end, not the question.
///
/// Between recordings, `listen` keeps the voice-activity detector's noise floor up to date.
/// Memory for the longest utterance is allocated once; only a finished utterance is copied out.
/// Used from one thread.
public final class UtteranceRecorder {
    /// Audio kept before the first speech frame, for soft onsets (an "s", a "wh") the voice
    /// activity detector does not count as speech.
    public static let speechLeadSeconds = 0.15
    /// How long after the detection speech under way may still be the wake word itself.
    public static let wakeWordTailSeconds = 0.3
    /// The least non-speech between the wake word and a question said after it; gaps between
    /// words said in one breath are shorter.
    public static let pauseSeconds = 0.1

    /// What the first frames after the detection held.
    private enum Onset: Equatable {
        /// No frame after the detection yet.
        case unheard
        /// Speech under way at the detection, either the end of the wake word or a question said in
        /// the same breath; `pauseFrames` is how long the speech has stopped for so far.
        case wakeWordTail(pauseFrames: Int)
        /// Speech went on past `wakeWordTailSeconds`: the question followed the wake word at once
        /// (or speech was under way at the start of a recording that follows no wake word).
        case sameBreath
        /// Silence at the detection, or after the wake word's end: the question comes after a pause.
        case pause
    }

    public let settings: RecordingSettings
    private var vad: VoiceActivityDetector
    private let storage: UnsafeMutableBufferPointer<Float>
    private let preRollCapacity: Int
    private let maxLengthSamples: Int
    private let noSpeechSamples: Int
    /// How long the recording under way waits for speech: `noSpeechSamples`, or what `start` was given.
    private var noSpeechLimit: Int
    private let trailingSilenceFrames: Int
    private let minimumSpeechFrames: Int
    private let wakeWordTailSamples: Int
    private let pauseFrames: Int

    private var count = 0
    private var preRollCount = 0
    /// Index in `storage` of the first sample of the current run of speech frames.
    private var speechRunStart: Int?
    private var speechRunFrames = 0
    private var speechStart: Int?
    private var silentFrames = 0
    private var onset = Onset.unheard
    /// Whether this recording began at a detection, so speech under way may be the wake word's end.
    private var afterWakeWord = true
    /// Where the first loud frame after the wake word begins, even one that may be the
    /// assistant's own sound: the question may start under the cue.
    private var firstSound: Int?
    public private(set) var isRecording = false

    public init(settings: RecordingSettings) {
        self.settings = settings
        vad = VoiceActivityDetector(marginDecibels: settings.vadMarginDecibels, minimumDecibels: settings.vadMinimumDecibels)
        let rate = Double(AudioFormat.sampleRate)
        preRollCapacity = Int((settings.preRollSeconds * rate).rounded())
        maxLengthSamples = Int((settings.maxLengthSeconds * rate).rounded())
        noSpeechSamples = Int((settings.noSpeechTimeoutSeconds * rate).rounded())
        noSpeechLimit = noSpeechSamples
        let frameSeconds = Double(VoiceActivityDetector.frameLength) / rate
        trailingSilenceFrames = max(1, Int((settings.trailingSilenceSeconds / frameSeconds).rounded()))
        minimumSpeechFrames = max(1, Int((settings.minimumSpeechSeconds / frameSeconds).rounded()))
        wakeWordTailSamples = Int((Self.wakeWordTailSeconds * rate).rounded())
        pauseFrames = max(1, Int((Self.pauseSeconds / frameSeconds).rounded()))
        storage = .allocate(capacity: preRollCapacity + maxLengthSamples)
        storage.initialize(repeating: 0)
    }

    deinit {
        storage.deallocate()
    }

    /// The pre-roll this recorder keeps, in samples.
    public var preRollSamples: Int { preRollCapacity }

    /// Where the question started, in samples after the detection; nil until it has.
    public var speechStartAfterDetection: Int? { speechStart.map { $0 - preRollCount } }

    /// The background level the voice-activity detector currently assumes, in dBFS.
    public var noiseFloorDecibels: Float? { vad.noiseFloorDecibels }

    /// Audio heard while not recording: only tracks the background level.
    public func listen(_ samples: UnsafeBufferPointer<Float>) {
        vad.process(samples) { _, _ in }
    }

    /// Starts an utterance at a detection. `preRoll` is the audio just before it (its last
    /// `preRollSamples` are kept). `noSpeechTimeout` (samples, at most the maximum length)
    /// replaces the settings' for this recording: how long a follow-up window waits.
    /// `afterWakeWord` false (a follow-up window, an enrollment take): no wake word ends in the
    /// first frames, so speech there is already the utterance's.
    public func start(preRoll: UnsafeBufferPointer<Float>, noSpeechTimeout: Int? = nil, afterWakeWord: Bool = true) {
        self.afterWakeWord = afterWakeWord
        noSpeechLimit = noSpeechTimeout.map { min($0, maxLengthSamples) } ?? noSpeechSamples
        let kept = min(preRoll.count, preRollCapacity)
        _ = UnsafeMutableBufferPointer(rebasing: storage[0..<kept])
            .initialize(from: UnsafeBufferPointer(rebasing: preRoll[(preRoll.count - kept)...]))
        count = kept
        preRollCount = kept
        speechRunStart = nil
        speechRunFrames = 0
        speechStart = nil
        silentFrames = 0
        onset = .unheard
        firstSound = nil
        vad.restartFrame()
        isRecording = true
    }

    /// Adds the next audio after the detection. With `ownOutput` the chunk may hold the
    /// assistant's own sound (the cue), whose frames never count as speech.
    public func record(_ samples: UnsafeBufferPointer<Float>, ownOutput: Bool = false) -> RecordingStatus {
        precondition(isRecording, "record(_:) before start(preRoll:)")
        let wasSpeaking = speechStart != nil
        let room = preRollCount + maxLengthSamples - count
        let taken = UnsafeBufferPointer(rebasing: samples[..<min(samples.count, room)])
        _ = UnsafeMutableBufferPointer(rebasing: storage[count..<(count + taken.count)]).initialize(from: taken)
        let chunkStart = count
        var endedAt: Int?  // index in `samples` where the utterance ended (trailing silence)
        vad.process(taken) { isSpeech, end in
            guard endedAt == nil else { return }
            let frameStart = chunkStart + end - VoiceActivityDetector.frameLength
            if !followsWakeWordTail(heard: isSpeech && !ownOutput, at: frameStart) { return }
            if isSpeech && firstSound == nil { firstSound = frameStart }
            if isSpeech && !ownOutput {
                if speechRunStart == nil { speechRunStart = frameStart }
                speechRunFrames += 1
                silentFrames = 0
                if speechStart == nil, speechRunFrames >= minimumSpeechFrames { speechStart = speechRunStart }
            } else {
                speechRunStart = nil
                speechRunFrames = 0
                silentFrames += 1
                if speechStart != nil, silentFrames >= trailingSilenceFrames { endedAt = end }
            }
        }
        if let endedAt {
            count = chunkStart + endedAt
            return .finished(finish(.trailingSilence), consumed: endedAt)
        }
        count += taken.count
        let sinceDetection = count - preRollCount
        if speechStart == nil, sinceDetection >= noSpeechLimit {
            let consumed = taken.count - (sinceDetection - noSpeechLimit)
            isRecording = false
            return .noSpeech(consumed: consumed)
        }
        if sinceDetection >= maxLengthSamples {
            return .finished(finish(.maxLength), consumed: taken.count)
        }
        return !wasSpeaking && speechStart != nil ? .speechStarted : .recording
    }

    /// Decides, frame by frame after the detection, whether speech under way at it is the wake
    /// word's end or a question said in the same breath. Returns whether the frame starting at
    /// `frameStart` (in `storage`) comes after the wake word, so it may be the question's.
    private func followsWakeWordTail(heard: Bool, at frameStart: Int) -> Bool {
        switch onset {
        case .sameBreath, .pause:
            return true
        case .unheard where !afterWakeWord:
            onset = heard ? .sameBreath : .pause
            return true
        case .unheard:
            onset = heard ? .wakeWordTail(pauseFrames: 0) : .pause
            return !heard
        case .wakeWordTail(let paused):
            if heard, frameStart - preRollCount >= wakeWordTailSamples {
                onset = .sameBreath
                speechStart = preRollCount
                return false
            }
            onset = heard ? .wakeWordTail(pauseFrames: 0) : paused + 1 >= pauseFrames ? .pause : .wakeWordTail(pauseFrames: paused + 1)
            return false
        }
    }

    /// The end of the last run of `pauseFrames` frames that are not speech in `storage[..<end]`,
    /// frames counted back from `end`.
    private func endOfLastPause(before end: Int) -> Int? {
        let frame = VoiceActivityDetector.frameLength
        var quiet = 0
        var frameEnd = end
        while frameEnd >= frame {
            guard let isSpeech = vad.judge(UnsafeBufferPointer(rebasing: storage[(frameEnd - frame)..<frameEnd])) else { return nil }
            quiet = isSpeech ? 0 : quiet + 1
            if quiet == pauseFrames { return frameEnd - frame + quiet * frame }
            frameEnd -= frame
        }
        return nil
    }

    /// Ends a recording without an utterance (the assistant is stopping or starting over).
    public func cancel() {
        isRecording = false
    }

    private func finish(_ end: Utterance.End) -> Utterance {
        isRecording = false
        let speech = speechStart ?? preRollCount
        let lead = Int(Self.speechLeadSeconds * Double(AudioFormat.sampleRate))
        // A question in the same breath starts after the last pause in the pre-roll (the wake word
        // ends before it; a late detection falls in the question), else at the detection (no
        // pause: the pre-roll is the wake word's own, which a recogniser would hear as "the").
        let first = onset == .sameBreath
            ? endOfLastPause(before: preRollCount) ?? preRollCount
            : min(max(0, min(speech, firstSound ?? speech) - lead), count)
        return Utterance(samples: Array(UnsafeBufferPointer(rebasing: storage[first..<count])),
                         preRollCount: max(0, preRollCount - first), speechStart: speech - first, end: end)
    }
}
