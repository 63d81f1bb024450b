import Foundation

/// When the assistant's own sound (cue, answers) may be in the microphone, as ranges of capture
/// positions (`SampleRing` positions): a sound that starts playing when the ring has received
/// `n` samples can only be in samples from `n` on, and lingers for a *tail* after the ring
/// position at which it finished playing. The listener asks for each chunk it processes
/// whether it overlaps such a range, whenever it gets to that chunk — so the answer does not
/// depend on how far behind the listener runs. The tail depends on who asks: the wake-word
/// detector scores a second of audio at a time and smooths its scores, so its tail is longer
/// than the room's echo, which is all voice-activity detection needs to allow for.
///
/// The player thread writes, the listener thread reads; a lock guards a fixed table of recent
/// ranges (no allocation after `init`).
final class OwnOutputLog: @unchecked Sendable {  // @unchecked: all state is guarded by `lock`
    /// How a sound of the assistant's own affects the wake-word detector while it may be heard.
    enum Kind: Int, Comparable, Sendable {
        /// Any sound (the cue, an answer): thresholds are raised, so only a clear wake word
        /// spoken over it counts (barge-in).
        case sound = 1
        /// Speech that says (part of) a wake word, such as "I'm SUSI": it would sound just like
        /// the user, so detections are ignored while it may be heard.
        case wakeWordSpeech = 2

        static func < (lhs: Kind, rhs: Kind) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    struct Token {
        fileprivate let slot: Int
        fileprivate let serial: UInt64
    }

    private let lock = NSLock()
    /// Recent ranges, oldest overwritten first; an open range ends at `UInt64.max`.
    private var starts: [UInt64]
    private var ends: [UInt64]
    private var serials: [UInt64]
    private var kinds: [Kind]
    private var nextSerial: UInt64 = 1
    private let capturePosition: @Sendable () -> UInt64

    /// - Parameter capturePosition: how many samples the capture ring has received so far.
    init(capturePosition: @escaping @Sendable () -> UInt64, capacity: Int = 8) {
        self.capturePosition = capturePosition
        starts = [UInt64](repeating: 0, count: capacity)
        ends = [UInt64](repeating: 0, count: capacity)
        serials = [UInt64](repeating: 0, count: capacity)
        kinds = [Kind](repeating: .sound, count: capacity)
    }

    /// A sound starts playing now.
    func begin(_ kind: Kind) -> Token {
        let position = capturePosition()
        return lock.withLock {
            let slot = Int(nextSerial % UInt64(starts.count))
            let token = Token(slot: slot, serial: nextSerial)
            nextSerial += 1
            starts[slot] = position
            ends[slot] = .max
            serials[slot] = token.serial
            kinds[slot] = kind
            return token
        }
    }

    /// The sound of `token` has finished playing now.
    func end(_ token: Token) {
        let position = capturePosition()
        lock.withLock {
            if serials[token.slot] == token.serial { ends[token.slot] = position }
        }
    }

    /// The strongest kind of own sound any of `positions` may hold, counting each sound as
    /// lasting `tail` samples longer than it played; nil when none.
    func strongest(in positions: Range<UInt64>, tail: UInt64) -> Kind? {
        lock.withLock {
            var strongest: Kind?
            for slot in starts.indices where serials[slot] != 0 {
                let end = ends[slot] == .max ? .max : ends[slot] + tail
                if starts[slot] < positions.upperBound && positions.lowerBound < end {
                    strongest = max(strongest ?? kinds[slot], kinds[slot])
                }
            }
            return strongest
        }
    }
}
