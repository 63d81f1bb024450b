/// How the question after a wake word is cut out of the stream (`[recording]` of `hotword.toml`).
public struct RecordingSettings: Sendable, Equatable {
    /// Audio kept from before the detection. None: a detection is at the keyword's end (the
    /// shipped models' within about 0.1 s), so audio before it is the wake word's own, which a
    /// recogniser hears as a word ("the") before the question. For a model that detects late.
    public var preRollSeconds = 0.0
    /// The utterance ends after this much non-speech following speech.
    public var trailingSilenceSeconds = 0.8
    /// …or at this length, counted from the detection.
    public var maxLengthSeconds = 8.0
    /// Give up when no speech starts within this time after the detection.
    public var noSpeechTimeoutSeconds = 3.0
    /// Speech must last this long (without a break) to count as the start of the question.
    public var minimumSpeechSeconds = 0.1
    /// A 10 ms frame is speech when it is this many dB above the tracked noise floor…
    public var vadMarginDecibels: Float = 9
    /// …and above this absolute level (dB relative to full scale).
    public var vadMinimumDecibels: Float = -55

    public init() {}
}
