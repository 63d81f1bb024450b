/// What `Hearing` makes of the stream, in stream order. Positions are sample positions of the stream.
public enum HearingEvent: Sendable, Equatable {
    /// A wake word; `position` is the sample at which it was detected (about the keyword's end).
    case wake(Detection, position: UInt64)
    /// A detection that waits for its keyword's second stage (`Hearing`'s `checks`), detected at
    /// `position`: `.wake` follows if the check agrees (or fails), else `.wakeRejected` or `.checkAbandoned`.
    case wakeChecking(Detection, position: UInt64)
    /// A detection its keyword's second stage did not confirm: ignored.
    case wakeRejected(Detection)
    /// A detection dropped before its check could decide: its audio was lost, waking was turned
    /// off meanwhile, or the stream ended.
    case checkAbandoned(Detection)
    /// The second stage failed on a detection (`reason`); it counts as confirmed, and `.wake` follows.
    case checkFailed(Detection, reason: String)
    /// A wake word heard while the assistant's own voice may have been saying it: ignored.
    case ownWakeWord(Detection)
    /// The question after the wake word has started, at `position`.
    case speechStarted(position: UInt64)
    /// The question is complete.
    case utterance(Utterance, wake: WakeAudio)
    /// Nobody spoke after the wake word.
    case noSpeech(wake: WakeAudio)
    /// Speech heard in the follow-up window after an answer (`Hearing.openFollowUp()`), without
    /// a wake word, complete: not a question, only perhaps a rating of the answer.
    case followUp(Utterance)
    /// The follow-up window closed at `position` with nobody speaking (its time ran out, or
    /// audio was lost).
    case followUpClosed(position: UInt64)
    /// Audio is being lost before it is heard (whoever fills the stream lapped whoever reads
    /// it): an episode of lost audio begins, reported at once with its first gap. Further gaps
    /// are counted into the episode, not reported, until `.audioFlowingAgain` ends it.
    case audioLost(samples: UInt64)
    /// The episode of lost audio has ended: `Hearing.Settings.lossEpisodeEnd` of audio was heard
    /// without a gap (or the stream ended). `lost`: all the episode lost, its first gap's included.
    case audioFlowingAgain(lost: UInt64)
    /// The assistant's own sound is in the audio (true: wake-word thresholds raised) or no longer is.
    case ownSoundHeard(Bool)
}

/// Where the audio of one wake lies in the stream, for keeping it (`[recording] keep_dir`): from
/// as much audio before the detection as the detector needs (and half a second more) to the
/// end of the question, or to where the recorder gave up waiting for one.
public struct WakeAudio: Sendable, Equatable {
    public var keyword: String
    /// The position of the detection.
    public var detection: UInt64
    public var positions: Range<UInt64>

    public init(keyword: String, detection: UInt64, positions: Range<UInt64>) {
        self.keyword = keyword
        self.detection = detection
        self.positions = positions
    }
}
