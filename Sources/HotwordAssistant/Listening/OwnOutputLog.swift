import HotwordCore
import Synchronization

/// When the assistant's own sound (cue, answers) may be in the microphone, as ranges of capture
/// positions (`SampleRing` positions): a sound that starts playing when the ring has received
/// `n` samples can only be in samples from `n` on, and lingers for a *tail* after the ring
/// position at which it finished playing. The listener asks for each chunk it processes
/// whether it overlaps such a range, whenever it gets to that chunk — so the answer does not
/// depend on how far behind the listener runs. The tail depends on who asks: the wake-word
/// detector scores a second of audio at a time and smooths its scores, so its tail is longer
/// than the room's echo, which is all voice-activity detection needs to allow for.
///
/// The player thread writes, the listener thread reads; a mutex guards a fixed table of recent
/// ranges (no allocation after `init`).
final class OwnOutputLog: OwnSoundLog, Sendable {
    struct Token {
        fileprivate let slot: Int
        fileprivate let serial: UInt64
    }

    /// Recent ranges, oldest overwritten first; an open range ends at `UInt64.max`.
    private struct Ranges {
        var starts: [UInt64]
        var ends: [UInt64]
        var serials: [UInt64]
        var kinds: [OwnSound]
        var nextSerial: UInt64 = 1
    }

    private let ranges: Mutex<Ranges>
    private let capturePosition: @Sendable () -> UInt64

    /// - Parameter capturePosition: how many samples the capture ring has received so far.
    init(capturePosition: @escaping @Sendable () -> UInt64, capacity: Int = 8) {
        self.capturePosition = capturePosition
        ranges = Mutex(Ranges(starts: [UInt64](repeating: 0, count: capacity), ends: [UInt64](repeating: 0, count: capacity),
                              serials: [UInt64](repeating: 0, count: capacity), kinds: [OwnSound](repeating: .sound, count: capacity)))
    }

    /// A sound starts playing now.
    func begin(_ kind: OwnSound) -> Token {
        let position = capturePosition()
        return ranges.withLock { ranges in
            let slot = Int(ranges.nextSerial % UInt64(ranges.starts.count))
            let token = Token(slot: slot, serial: ranges.nextSerial)
            ranges.nextSerial += 1
            ranges.starts[slot] = position
            ranges.ends[slot] = .max
            ranges.serials[slot] = token.serial
            ranges.kinds[slot] = kind
            return token
        }
    }

    /// The sound of `token` has finished playing now.
    func end(_ token: Token) {
        let position = capturePosition()
        ranges.withLock { ranges in
            if ranges.serials[token.slot] == token.serial { ranges.ends[token.slot] = position }
        }
    }

    /// The sound of `token` was never heard (it plays muted): forget it.
    func cancel(_ token: Token) {
        ranges.withLock { ranges in
            if ranges.serials[token.slot] == token.serial { ranges.serials[token.slot] = 0 }
        }
    }

    func strongest(in positions: Range<UInt64>, tail: UInt64) -> OwnSound? {
        ranges.withLock { ranges in
            var strongest: OwnSound?
            for slot in ranges.starts.indices where ranges.serials[slot] != 0 {
                let end = ranges.ends[slot] == .max ? .max : ranges.ends[slot] + tail
                if ranges.starts[slot] < positions.upperBound && positions.lowerBound < end {
                    strongest = max(strongest ?? ranges.kinds[slot], ranges.kinds[slot])
                }
            }
            return strongest
        }
    }
}
