import Atomics
import HotwordCore

/// A lock-free single-producer / single-consumer ring of audio samples.
///
/// The producer is the capture thread, which must never wait: if the consumer (feature
/// extraction, detection) falls behind, the producer overwrites the oldest audio and the
/// consumer later skips past it, counting the lost samples as dropped. Losing stale audio is
/// better than stalling capture, which would lose the newest audio and overrun the sound card.
///
/// Samples are addressed by absolute 64-bit positions (the n-th sample ever written has position
/// n), so a consumer can tell exactly what it got, what it missed, and ask for the audio before a
/// given moment (pre-roll when a wake word is detected).
///
/// Validation works like a seqlock: the producer announces how far it is about to write
/// (`claimed`) before copying and publishes the new end (`written`) after copying. A reader copies
/// first and then checks `claimed`: anything the producer may have started to overwrite during the
/// copy is discarded. Every sample returned is therefore exactly the one written at its position.
/// The copy itself can race with the producer on memory it will discard; those reads are plain
/// float loads whose values are never used.
///
/// Memory is allocated once in `init`; `write`, `read` and `readLast` allocate nothing.
public final class SampleRing: RecentAudio, @unchecked Sendable {
    // @unchecked: the storage is shared by the producer and readers; the atomic positions below
    // decide who may trust which slots (see the type's documentation).

    /// Number of samples the ring holds: a power of two, so a position maps to a slot with a mask.
    public let capacity: Int
    private let mask: UInt64
    private let storage: UnsafeMutablePointer<Float>

    /// End of what the producer has finished writing (release-stored after the copy).
    private let written = ManagedAtomic<UInt64>(0)
    /// End of what the producer has started writing (stored before the copy): slots of positions
    /// before `claimed - capacity` may hold newer audio.
    private let claimed = ManagedAtomic<UInt64>(0)
    /// The consumer's next position.
    private let consumed = ManagedAtomic<UInt64>(0)
    private let dropped = ManagedAtomic<UInt64>(0)

    /// A ring holding at least `minimumCapacity` samples (rounded up to a power of two).
    public init(minimumCapacity: Int) {
        var capacity = 1
        while capacity < minimumCapacity { capacity <<= 1 }
        self.capacity = capacity
        mask = UInt64(capacity - 1)
        storage = .allocate(capacity: capacity)
        storage.initialize(repeating: 0, count: capacity)
    }

    deinit {
        storage.deallocate()
    }

    // MARK: Statistics (any thread)

    /// Samples written since creation.
    public var totalWritten: UInt64 { written.load(ordering: .acquiring) }
    /// Samples the consumer lost because the producer overwrote them first.
    public var totalDropped: UInt64 { dropped.load(ordering: .relaxed) }
    /// The consumer's next position: every earlier sample was either read or dropped, so once the
    /// consumer has caught up, `readPosition == totalWritten`.
    public var readPosition: UInt64 { consumed.load(ordering: .relaxed) }

    // MARK: Producer (one thread)

    /// Appends samples, overwriting the oldest ones when the ring is full. Never blocks, never
    /// refuses. Of a block larger than the ring only the last `capacity` samples are kept.
    public func write(_ samples: UnsafeBufferPointer<Float>) {
        guard let source = samples.baseAddress, !samples.isEmpty else { return }
        let start = written.load(ordering: .relaxed)  // only this thread changes it
        let end = start + UInt64(samples.count)
        let kept = min(samples.count, capacity)
        claimed.store(end, ordering: .relaxed)
        // Orders the claim before the sample stores, so a reader who sees new samples sees the claim.
        atomicMemoryFence(ordering: .releasing)
        copyIn(source + (samples.count - kept), count: kept, at: end - UInt64(kept))
        written.store(end, ordering: .releasing)
    }

    /// Array convenience for `write(_:)`.
    public func write(_ samples: [Float]) {
        samples.withUnsafeBufferPointer { write($0) }
    }

    // MARK: Consumer (one thread)

    /// Copies the oldest unread samples (at most `buffer.count`) to the start of `buffer` and
    /// advances the read position. If the producer has lapped the consumer, the lost samples are
    /// skipped and counted in `totalDropped`; the returned span then starts later than the
    /// previous one ended. A span with `count == 0` means nothing new has been written.
    public func read(into buffer: UnsafeMutableBufferPointer<Float>) -> SampleSpan {
        let available = written.load(ordering: .acquiring)
        var position = consumed.load(ordering: .relaxed)  // only this thread changes it
        var lost: UInt64 = 0
        if available - position > UInt64(capacity) {
            lost = available - UInt64(capacity) - position
            position += lost
        }
        let count = min(Int(available - position), buffer.count)
        let chunk = copyOutValidated(from: position, count: count, into: buffer)
        lost += UInt64(count - chunk.count)
        if lost > 0 { dropped.wrappingIncrement(by: lost, ordering: .relaxed) }
        consumed.store(position + UInt64(count), ordering: .relaxed)
        return chunk
    }

    /// Copies the last `count` samples before `position` (clamped to what has been written) that
    /// are still intact to the start of `buffer`, at most `buffer.count`. For pre-roll: the audio
    /// leading up to a detection. Fewer samples come back when older ones were overwritten or
    /// never existed; the span always ends at the clamped position unless none are left.
    /// Moves neither the read position nor the drop count, and may be called from any thread.
    public func readLast(_ count: Int, endingAt position: UInt64, into buffer: UnsafeMutableBufferPointer<Float>) -> SampleSpan {
        let end = min(position, written.load(ordering: .acquiring))
        let wanted = UInt64(max(0, min(count, buffer.count)))
        let oldestKept = end > UInt64(capacity) ? end - UInt64(capacity) : 0
        let start = max(end >= wanted ? end - wanted : 0, oldestKept)
        return copyOutValidated(from: start, count: Int(end - start), into: buffer)
    }

    // MARK: Copying

    private func copyIn(_ source: UnsafePointer<Float>, count: Int, at position: UInt64) {
        let slot = Int(position & mask)
        let first = min(count, capacity - slot)
        (storage + slot).update(from: source, count: first)
        storage.update(from: source + first, count: count - first)
    }

    /// Copies positions `start ..< start + count` (all ≤ `written`), then drops from the front
    /// whatever the producer may have overwritten meanwhile and moves the rest to the buffer start.
    private func copyOutValidated(from start: UInt64, count: Int, into buffer: UnsafeMutableBufferPointer<Float>) -> SampleSpan {
        guard count > 0, let target = buffer.baseAddress else { return SampleSpan(start: start, count: 0) }
        let slot = Int(start & mask)
        let first = min(count, capacity - slot)
        target.update(from: storage + slot, count: first)
        (target + first).update(from: storage, count: count - first)
        // Pairs with the producer's release fence: if the copy saw any new sample, this load sees
        // the claim made before it was written.
        atomicMemoryFence(ordering: .acquiring)
        let claimedEnd = claimed.load(ordering: .relaxed)
        let oldestIntact = claimedEnd > UInt64(capacity) ? claimedEnd - UInt64(capacity) : 0
        let overwritten = oldestIntact > start ? Int(min(UInt64(count), oldestIntact - start)) : 0
        if overwritten > 0 {  // rare: only when the producer lapped us during the copy
            UnsafeMutableRawPointer(target).copyMemory(  // memmove: the ranges overlap
                from: target + overwritten, byteCount: (count - overwritten) * MemoryLayout<Float>.stride)
        }
        return SampleSpan(start: start + UInt64(overwritten), count: count - overwritten)
    }
}
