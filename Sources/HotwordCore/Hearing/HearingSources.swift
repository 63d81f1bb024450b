/// A run of consecutive samples of a stream: positions `start ..< start + count` (the n-th
/// sample of the stream has position n).
public struct SampleSpan: Sendable, Equatable {
    public let start: UInt64
    public let count: Int

    public init(start: UInt64, count: Int) {
        self.start = start
        self.count = count
    }

    public var end: UInt64 { start + UInt64(count) }
}

/// The recent audio of the stream `Hearing` hears, read back for pre-roll and for a restarted
/// detector: the capture ring (`SampleRing`) in the assistant.
public protocol RecentAudio: AnyObject {
    /// Copies the last `count` samples before `position` that are still held to the start of
    /// `buffer` (at most `buffer.count`); fewer when older ones are gone. The span ends at
    /// `position` unless none are left. Allocates nothing.
    func readLast(_ count: Int, endingAt position: UInt64, into buffer: UnsafeMutableBufferPointer<Float>) -> SampleSpan
}

/// How the assistant's own sound (its cue, its answers) affects the wake-word detector while it
/// may be in the microphone.
public enum OwnSound: Int, Comparable, Sendable {
    /// Any sound: thresholds are raised, so only a clear wake word spoken over it counts (barge-in).
    case sound = 1
    /// Speech that says (part of) a wake word, such as "I'm SUSI": it would sound just like the
    /// user, so detections are ignored while it may be heard.
    case wakeWordSpeech = 2

    public static func < (lhs: OwnSound, rhs: OwnSound) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Where in the stream the assistant's own sound may be: `OwnOutputLog` in the assistant.
public protocol OwnSoundLog: AnyObject {
    /// The strongest own sound any of `positions` may hold, counting each sound as lasting
    /// `tail` samples longer than it played; nil when none. Allocates nothing.
    func strongest(in positions: Range<UInt64>, tail: UInt64) -> OwnSound?
}
