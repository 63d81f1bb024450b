/// Everything the assistant does with the audio it hears, on one thread, with no clock but
/// sample positions: chunks of the stream in, in order, events out (`HearingEvent`).
///
/// Between questions the wake-word detector hears every sample, and the voice-activity
/// detector of the utterance recorder tracks the background. After a detection the recorder
/// takes over at the detection's sample (with pre-roll read back from `RecentAudio`) until the
/// question ends; then the detector starts afresh at the first sample after it, so the wake
/// word and the question are never heard twice and nothing is skipped. It first hears the
/// audio between the detection and there (up to its warm-up length, what it detects ignored),
/// so a new wake word can be detected at once. A chunk may hold the end of one question and
/// the next wake word: it is split at both, in a loop.
///
/// A gap in the positions (audio lost before it was heard) is reported, once per episode of
/// lost audio (`Settings.lossEpisodeEnd`); during a question it
/// counts as silence, otherwise the detector restarts after it rather than joining audio
/// across it. While the assistant's own sound may be in the audio (`OwnSoundLog`), every
/// keyword's sensitivity is lowered to `ownSoundSensitivity` (but a checked one's, below), and a
/// detection while its own voice says a wake word is ignored.
///
/// After an answer, `openFollowUp()` opens a follow-up window of `Settings.followUp` samples
/// at the next sample: the detector goes on hearing every sample, and the recorder waits for
/// speech without a wake word. Speech in the window is recorded to its end (`.followUp`);
/// nobody speaking closes it by the sample clock (`.followUpClosed`). A wake word in it is
/// heard as at any time, and its question replaces the follow-up recording (which most likely
/// heard the wake word's own start).
///
/// A keyword with a second stage (`checks`) is answered only once the check agrees: at a
/// detection it reports `.wakeChecking` (the assistant silences its own sound meanwhile, so a
/// question said over an answer is not taken for that sound) and waits until
/// `CheckedWindow.after` seconds of audio have come (a follow-up window's recording goes on
/// meanwhile), then asks the check about the audio around the detection. If it agrees, the wake is reported at the detection's sample (late by that
/// wait) and the recorder catches up from there, reading the waited audio back, so the question
/// loses nothing; if not, `.wakeRejected` is reported and the detector restarts as after a
/// question. A check that fails is reported and counts as agreeing: a broken second stage must
/// not make the assistant deaf. Audio lost during the wait takes the detection with it
/// (`.checkAbandoned`).
///
/// Buffers are allocated in `init`; `hear` allocates nothing but a finished question (or
/// follow-up) and a checked window.
public final class Hearing {
    public struct Settings: Sendable, Equatable {
        /// Per keyword, as for `Detector`: whatever is not set keeps the model's default.
        public var keywords: [String: KeywordSettings]
        /// The sensitivity while the assistant's own sound may be heard (a lower one is kept).
        public var ownSoundSensitivity: Float
        /// How long after it stopped the assistant's own sound may still wake the detector
        /// (room echo, device latency, the detector's smoothing), in samples.
        public var ownSoundTail: UInt64
        public var recording: RecordingSettings
        /// How much audio heard without a gap ends an episode of lost audio, in samples. A
        /// listener that stays behind (lapped at every read, as by an unpaced source) is one
        /// episode, reported once; audio lost after it flowed this long again is a new one.
        public var lossEpisodeEnd: UInt64
        /// How long the follow-up window after an answer waits for speech without a wake word,
        /// in samples (0: it never opens); at most the recording's maximum length.
        public var followUp: UInt64

        public init(keywords: [String: KeywordSettings] = [:], ownSoundSensitivity: Float = 0.2,
                    ownSoundTail: UInt64 = UInt64(AudioFormat.sampleRate / 2), recording: RecordingSettings = RecordingSettings(),
                    lossEpisodeEnd: UInt64 = UInt64(5 * AudioFormat.sampleRate), followUp: UInt64 = 0) {
            self.keywords = keywords
            self.ownSoundSensitivity = ownSoundSensitivity
            self.ownSoundTail = ownSoundTail
            self.recording = recording
            self.lossEpisodeEnd = lossEpisodeEnd
            self.followUp = followUp
        }
    }

    /// How long the assistant's own sound lingers for voice activity: the room's echo.
    private static let roomEchoTail = UInt64(AudioFormat.sampleRate / 10)
    /// Stretches of the stream (10 ms) for each of which the recorder is told whether it may
    /// hold the assistant's own sound.
    private static let ownSoundBlock = AudioFormat.sampleRate / 100

    public let settings: Settings
    private let detector: Detector
    /// Per keyword: the sensitivity normally, and while the assistant's own sound may be heard.
    private let sensitivities: [(keyword: String, normal: Float, duringOwnSound: Float)]
    private var recorder: UtteranceRecorder
    private let audio: any RecentAudio
    private let ownSound: any OwnSoundLog
    /// How much audio before a detection the detector heard to make it (its receptive field).
    private let warmUp: Int
    private let preRoll: UnsafeMutableBufferPointer<Float>
    /// Audio from before the detector's restart that it hears first.
    private let priming: UnsafeMutableBufferPointer<Float>
    private let silence: UnsafeMutableBufferPointer<Float>
    /// Per keyword, the second stage its detections must pass, if any.
    private let checks: [String: any DetectionCheck]
    /// The audio around a detection being checked, and then the audio the recorder catches up on.
    private let checked: UnsafeMutableBufferPointer<Float>
    /// A detection waiting for the audio after it, to be checked at sample `end`.
    private var pendingCheck: (detection: Detection, position: UInt64, end: UInt64)?

    /// The position of the next sample `hear` expects.
    public private(set) var nextPosition: UInt64 = 0
    /// Where the detector's stream began: its detection times count from here.
    private var detectorOrigin: UInt64 = 0
    private var wake: (keyword: String, position: UInt64) = ("", 0)
    private var speechStartReported = false
    /// Whether the recorder is recording in a follow-up window rather than a question.
    private var followingUp = false
    private var ownSoundThresholds = false
    /// The episode of lost audio under way, if any: all it lost, and the audio heard since its last gap.
    private var lossEpisode: (lost: UInt64, heardSinceGap: UInt64)?

    /// - Parameters:
    ///   - audio: the stream's recent audio (pre-roll, priming a restarted detector).
    ///   - ownSound: where the assistant's own sound may be in the stream.
    ///   - checks: per keyword, a second stage its detections must pass (`audio` must hold
    ///     `CheckedWindow.before + after` seconds more than the pre-roll).
    public init(models: [KeywordModel], settings: Settings, audio: any RecentAudio, ownSound: any OwnSoundLog,
                checks: [String: any DetectionCheck] = [:]) throws(DetectorError) {
        let detector = try Detector(models: models, settings: settings.keywords)
        try detector.requireKeywords(checks.keys)
        self.detector = detector
        self.checks = checks
        // A keyword with a second stage keeps its sensitivity while the assistant's own sound
        // plays: pocketsphinx, not a stricter network, keeps the assistant's voice out (which the
        // network, for a word learnt from synthetic voices, may score like the wake word).
        sensitivities = models.flatMap { model in
            model.keywords.map { keyword in
                let normal = settings.keywords[keyword]?.sensitivity ?? model.detection.sensitivity
                return (keyword, normal, checks[keyword] == nil ? min(normal, settings.ownSoundSensitivity) : normal)
            }
        }
        self.settings = settings
        self.audio = audio
        self.ownSound = ownSound
        recorder = UtteranceRecorder(settings: settings.recording)
        warmUp = detector.warmUpSamples
        preRoll = .allocate(capacity: max(1, recorder.preRollSamples))
        priming = .allocate(capacity: max(1, warmUp))
        silence = .allocate(capacity: 1_024)
        silence.initialize(repeating: 0)
        let checkedSeconds = checks.isEmpty ? 0 : CheckedWindow.before + CheckedWindow.after
        checked = .allocate(capacity: max(1, Int(checkedSeconds * Double(AudioFormat.sampleRate))))
    }

    deinit {
        checked.deallocate()
        preRoll.deallocate()
        priming.deallocate()
        silence.deallocate()
    }

    public var keywords: [String] { detector.keywords }

    /// Whether a question is being recorded, a follow-up window is open or a detection awaits its
    /// check (new settings wait for its end).
    public var isRecording: Bool { recorder.isRecording || pendingCheck != nil }

    /// Hears the next chunk of the stream, which starts at `position` (after a gap when that is
    /// past `nextPosition`). With `wakeEnabled` false, detections are ignored (busy, no barge-in).
    public func hear(_ samples: UnsafeBufferPointer<Float>, at position: UInt64, wakeEnabled: Bool = true,
                     _ emit: (HearingEvent) -> Void) {
        precondition(position >= nextPosition, "audio at \(position) after audio up to \(nextPosition)")
        if position > nextPosition { skipGap(to: position, emit) }
        nextPosition = position + UInt64(samples.count)
        consume(samples, at: position, wakeEnabled: wakeEnabled, emit)
        if var episode = lossEpisode {
            episode.heardSinceGap += UInt64(samples.count)
            lossEpisode = episode
            if episode.heardSinceGap >= settings.lossEpisodeEnd { endLossEpisode(emit) }
        }
    }

    /// Hands each part of `samples` to whoever hears it now, in a loop: the state may change within a chunk.
    private func consume(_ samples: UnsafeBufferPointer<Float>, at position: UInt64, wakeEnabled: Bool,
                         _ emit: (HearingEvent) -> Void) {
        var offset = 0
        while offset < samples.count {
            let rest = UnsafeBufferPointer(rebasing: samples[offset...])
            let at = position + UInt64(offset)
            offset += pendingCheck != nil ? awaitCheck(rest, at: at, wakeEnabled: wakeEnabled, emit)
                : !recorder.isRecording ? detect(rest, at: at, wakeEnabled: wakeEnabled, emit)
                : followingUp ? followUp(rest, at: at, wakeEnabled: wakeEnabled, emit) : record(rest, at: at, emit)
        }
    }

    /// Opens the follow-up window at `nextPosition` (the answer has ended). Nothing happens while
    /// a question is being recorded (a wake word came first) or a window is open, nor with `followUp` 0.
    public func openFollowUp() {
        guard settings.followUp > 0, !recorder.isRecording else { return }
        recorder.start(preRoll: UnsafeBufferPointer(rebasing: preRoll[..<0]), noSpeechTimeout: Int(settings.followUp), afterWakeWord: false)
        followingUp = true
    }

    /// Continues the stream of `previous` (which is not recording) with these settings: the same
    /// positions and loss accounting, the recorder's noise floor when the recording settings are
    /// the same, and a detector that first hears what the old one last heard (never audio from
    /// before its start, so a wake word already answered is not heard again).
    public func continueStream(of previous: Hearing) {
        precondition(!previous.isRecording, "new settings while recording")
        nextPosition = previous.nextPosition
        lossEpisode = previous.lossEpisode
        if previous.recorder.settings == recorder.settings { recorder = previous.recorder }
        primeDetector(from: previous.detectorOrigin, to: nextPosition) { _ in }
    }

    /// The stream has ended: an episode of lost audio under way ends, and a question being recorded is dropped.
    public func finish(_ emit: (HearingEvent) -> Void) {
        endLossEpisode(emit)
        recorder.cancel()
        followingUp = false
        abandonCheck(emit)
    }

    // MARK: Detecting

    /// Feeds the detector; returns how much of `samples` it took: all, or up to a detection.
    private func detect(_ samples: UnsafeBufferPointer<Float>, at position: UInt64, wakeEnabled: Bool,
                        _ emit: (HearingEvent) -> Void) -> Int {
        recorder.listen(samples)
        guard let wakeWord = wakeWord(in: samples, at: position, wakeEnabled: wakeEnabled, emit) else { return samples.count }
        if !awaitsCheck(wakeWord, emit) { startQuestion(after: wakeWord.detection, at: wakeWord.position, emit) }
        return Int(wakeWord.position - position)
    }

    /// Feeds the detector all of `samples`; returns the wake word to answer and the sample it was
    /// detected at, if any (none while waking is off; the assistant's own is reported, not answered).
    private func wakeWord(in samples: UnsafeBufferPointer<Float>, at position: UInt64, wakeEnabled: Bool,
                          _ emit: (HearingEvent) -> Void) -> (detection: Detection, position: UInt64)? {
        let end = position + UInt64(samples.count)
        let own = ownSound.strongest(in: position..<end, tail: settings.ownSoundTail)
        raiseThresholds(own != nil, emit)
        guard let detection = detector.process(samples).first, wakeEnabled else { return nil }
        guard own != .wakeWordSpeech else {
            emit(.ownWakeWord(detection))
            return nil
        }
        let offset = UInt64((detection.time * Double(AudioFormat.sampleRate)).rounded())
        return (detection, min(max(detectorOrigin + offset, position), end))
    }

    /// Starts recording the question after the wake word detected at `detected` (ending the
    /// follow-up window first when `interrupting`: its recording most likely heard the wake word's start).
    private func startQuestion(interrupting: Bool = false, after detection: Detection, at detected: UInt64,
                               _ emit: (HearingEvent) -> Void) {
        if interrupting, followingUp {
            recorder.cancel()
            followingUp = false
        }
        emit(.wake(detection, position: detected))
        wake = (detection.keyword, detected)
        let kept = audio.readLast(recorder.preRollSamples, endingAt: detected, into: preRoll)
        recorder.start(preRoll: UnsafeBufferPointer(rebasing: preRoll[..<kept.count]))
        speechStartReported = false
    }

    /// Restarts the detector at the latest of `origin` and what fits its warm-up before `end`,
    /// and lets it hear the audio from there to `end`; what it detects in that is ignored.
    private func primeDetector(from origin: UInt64, to end: UInt64, _ emit: (HearingEvent) -> Void) {
        let wanted = min(UInt64(priming.count), end - min(origin, end))
        let primed = audio.readLast(Int(wanted), endingAt: end, into: priming)
        // A whole warm-up of real audio is the best lead-in there is; a shorter one gets the
        // detector's own before it.
        detector.reset(leadIn: primed.count < warmUp)
        detectorOrigin = primed.start
        raiseThresholds(false, emit)
        _ = detector.process(UnsafeBufferPointer(rebasing: priming[..<primed.count]))
    }

    /// Lowers every keyword's sensitivity while the assistant's own sound may be heard, and
    /// restores it afterwards.
    private func raiseThresholds(_ raised: Bool, _ emit: (HearingEvent) -> Void) {
        guard raised != ownSoundThresholds else { return }
        ownSoundThresholds = raised
        for setting in sensitivities {
            try? detector.setSensitivity(raised ? setting.duringOwnSound : setting.normal, for: setting.keyword)
        }
        emit(.ownSoundHeard(raised))
    }

    // MARK: Checking

    /// Whether `wakeWord` waits for its keyword's check (which starts waiting now).
    private func awaitsCheck(_ wakeWord: (detection: Detection, position: UInt64), _ emit: (HearingEvent) -> Void) -> Bool {
        guard checks[wakeWord.detection.keyword] != nil else { return false }
        let end = wakeWord.position + UInt64(CheckedWindow.after * Double(AudioFormat.sampleRate))
        pendingCheck = (wakeWord.detection, wakeWord.position, end)
        emit(.wakeChecking(wakeWord.detection, position: wakeWord.position))
        return true
    }

    /// Drops the detection waiting for its check, if any.
    private func abandonCheck(_ emit: (HearingEvent) -> Void) {
        guard let pending = pendingCheck else { return }
        pendingCheck = nil
        emit(.checkAbandoned(pending.detection))
    }

    /// Hears audio while a detection waits for the audio after it: the detector pauses (it restarts
    /// after the check), a follow-up window's recording goes on. Returns how much it took: all, or
    /// up to the end of the wait, where the check decides.
    private func awaitCheck(_ samples: UnsafeBufferPointer<Float>, at position: UInt64, wakeEnabled: Bool,
                            _ emit: (HearingEvent) -> Void) -> Int {
        guard let pending = pendingCheck else { return 0 }
        let taken = Int(min(UInt64(samples.count), pending.end - position))
        if followingUp { recordFollowUp(UnsafeBufferPointer(rebasing: samples[..<taken]), at: position, emit) }
        if position + UInt64(taken) == pending.end {
            pendingCheck = nil
            decideCheck(of: pending.detection, at: pending.position, end: pending.end, wakeEnabled: wakeEnabled, emit)
        }
        return taken
    }

    /// Asks the keyword's check about the audio around the detection at `detected`; if it agrees
    /// (and waking is still on), starts the question there and lets the recorder hear the audio
    /// from the detection to `end` again; if not, the detector restarts at `end`, having heard
    /// the audio since the detection (what it detects in that is ignored, as after a question).
    private func decideCheck(of detection: Detection, at detected: UInt64, end: UInt64, wakeEnabled: Bool,
                             _ emit: (HearingEvent) -> Void) {
        guard let check = checks[detection.keyword], wakeEnabled else {
            emit(.checkAbandoned(detection))
            primeDetector(from: detected, to: end, emit)
            return
        }
        let wanted = UInt64(CheckedWindow.before * Double(AudioFormat.sampleRate)) + (end - detected)
        let window = audio.readLast(Int(min(wanted, end - min(detectorOrigin, end))), endingAt: end, into: checked)
        do {
            guard try check.accepts([Array(checked[..<window.count])]).first == true else {
                emit(.wakeRejected(detection))
                primeDetector(from: detected, to: end, emit)
                return
            }
        } catch {
            emit(.checkFailed(detection, reason: "\(error)"))
        }
        startQuestion(interrupting: true, after: detection, at: detected, emit)
        let waited = audio.readLast(Int(end - detected), endingAt: end, into: checked)
        consume(UnsafeBufferPointer(rebasing: checked[..<waited.count]), at: waited.start, wakeEnabled: wakeEnabled, emit)
    }

    // MARK: Recording

    /// Feeds the recorder; returns how much of `samples` belongs to the question: all, or up to its end.
    private func record(_ samples: UnsafeBufferPointer<Float>, at position: UInt64, _ emit: (HearingEvent) -> Void) -> Int {
        guard !samples.isEmpty else { return 0 }
        let (status, piece) = recordPiece(samples, at: position)
        switch status {
        case .recording:
            return piece
        case .speechStarted:
            reportSpeechStart(emit)
            return piece
        case .finished(let utterance, let consumed):
            reportSpeechStart(emit)
            let resume = position + UInt64(consumed)
            emit(.utterance(utterance, wake: wakeAudio(endingAt: resume)))
            primeDetector(from: wake.position, to: resume, emit)
            return consumed
        case .noSpeech(let consumed):
            let resume = position + UInt64(consumed)
            emit(.noSpeech(wake: wakeAudio(endingAt: resume)))
            primeDetector(from: wake.position, to: resume, emit)
            return consumed
        }
    }

    /// Whether `samples` at `position` may hold the assistant's own sound, for voice activity.
    private func ownSoundHeard(_ samples: UnsafeBufferPointer<Float>, at position: UInt64) -> Bool {
        ownSound.strongest(in: position..<(position + UInt64(samples.count)), tail: Self.roomEchoTail) != nil
    }

    /// The recorder's next piece of `samples`: up to the next boundary of the stream's
    /// `ownSoundBlock`s, so whether audio may hold the assistant's own sound is decided per block
    /// however the audio comes in chunks (a checked wake word's recorder catches up on a second at once).
    private func recordPiece(_ samples: UnsafeBufferPointer<Float>, at position: UInt64) -> (status: RecordingStatus, count: Int) {
        let block = UInt64(Self.ownSoundBlock)
        let piece = UnsafeBufferPointer(rebasing: samples[..<min(samples.count, Int(block - position % block))])
        return (recorder.record(piece, ownOutput: ownSoundHeard(piece, at: position)), piece.count)
    }

    private func reportSpeechStart(_ emit: (HearingEvent) -> Void) {
        guard !speechStartReported, let offset = recorder.speechStartAfterDetection else { return }
        speechStartReported = true
        emit(.speechStarted(position: wake.position + UInt64(max(0, offset))))
    }

    /// Half a second more than the detector needs before the detection: a listener hears the
    /// wake word begin, and the detector run over the file again has all it heard.
    private func wakeAudio(endingAt end: UInt64) -> WakeAudio {
        let lead = UInt64(max(warmUp + AudioFormat.sampleRate / 2, recorder.preRollSamples))
        return WakeAudio(keyword: wake.keyword, detection: wake.position, positions: (wake.position - min(wake.position, lead))..<end)
    }

    // MARK: Following up

    /// Hears a chunk in the follow-up window: the detector as between questions, the recorder as
    /// during one. Returns how much it took: all, or up to a wake word (whose question ends the window).
    private func followUp(_ samples: UnsafeBufferPointer<Float>, at position: UInt64, wakeEnabled: Bool,
                          _ emit: (HearingEvent) -> Void) -> Int {
        let wakeWord = wakeWord(in: samples, at: position, wakeEnabled: wakeEnabled, emit)
        let heard = wakeWord.map { Int($0.position - position) } ?? samples.count
        recordFollowUp(UnsafeBufferPointer(rebasing: samples[..<heard]), at: position, emit)
        guard let wakeWord else { return samples.count }
        if !awaitsCheck(wakeWord, emit) { startQuestion(interrupting: true, after: wakeWord.detection, at: wakeWord.position, emit) }
        return heard
    }

    /// Records audio of the window until the speech in it ends or its time runs out; after
    /// that, the voice-activity detector only tracks the background. The detector has heard it all.
    private func recordFollowUp(_ samples: UnsafeBufferPointer<Float>, at position: UInt64, _ emit: (HearingEvent) -> Void) {
        var consumed = 0
        pieces: while consumed < samples.count {
            let at = position + UInt64(consumed)
            let (status, piece) = recordPiece(UnsafeBufferPointer(rebasing: samples[consumed...]), at: at)
            switch status {
            case .recording, .speechStarted:
                consumed += piece
            case .finished(let utterance, let taken):
                emit(.followUp(utterance))
                consumed += taken
                break pieces
            case .noSpeech(let taken):
                emit(.followUpClosed(position: at + UInt64(taken)))
                consumed += taken
                break pieces
            }
        }
        guard consumed < samples.count || !recorder.isRecording else { return }
        followingUp = false
        recorder.listen(UnsafeBufferPointer(rebasing: samples[consumed...]))
    }

    // MARK: Lost audio

    /// Audio from `nextPosition` to `position` was lost.
    private func skipGap(to position: UInt64, _ emit: (HearingEvent) -> Void) {
        let lost = position - nextPosition
        if let episode = lossEpisode {
            lossEpisode = (episode.lost + lost, 0)
        } else {
            emit(.audioLost(samples: lost))
            lossEpisode = (lost, 0)
        }
        // A detection waiting for its check is lost with the audio: the ring lapped, so the audio
        // around it has been overwritten.
        abandonCheck(emit)
        // A follow-up window ends: what was said in it is incomplete.
        if followingUp {
            recorder.cancel()
            followingUp = false
            emit(.followUpClosed(position: nextPosition))
        }
        // A question keeps its timing: the lost stretch becomes silence.
        var at = nextPosition
        while at < position, recorder.isRecording {
            let count = Int(min(position - at, UInt64(silence.count)))
            at += UInt64(record(UnsafeBufferPointer(rebasing: silence[..<count]), at: at, emit))
        }
        if !recorder.isRecording {
            // Without the lead-in: a listener that fell behind must not be given more to do.
            detector.reset(leadIn: false)
            detectorOrigin = position
        }
    }

    /// Ends the episode of lost audio under way, if any, with all it lost.
    private func endLossEpisode(_ emit: (HearingEvent) -> Void) {
        guard let episode = lossEpisode else { return }
        emit(.audioFlowingAgain(lost: episode.lost))
        lossEpisode = nil
    }
}
