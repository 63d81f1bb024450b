/// How the question after a wake word is cut out of the stream (`[recording]` of `hotword.toml`).
public struct RecordingSettings: Sendable, Equatable {
    /// Audio kept from before the detection, for a question said in the same breath when the
    /// detection comes late (inside the question). Only what follows a pause in it is kept: the
    /// wake word's tail before the pause would be heard as a word ("the") before the question.
    public var preRollSeconds = 0.3
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
