import Foundation
import Synchronization
import Testing
import HotwordAudio
import HotwordCore

@Suite struct SampleRingTests {
    /// The value written at a position: exact in Float up to 2^24, so any misplaced sample shows.
    static func value(at position: UInt64) -> Float { Float(position & 0xFF_FFFF) }

    static func ramp(from start: UInt64, count: Int) -> [Float] {
        (0..<UInt64(count)).map { value(at: start + $0) }
    }

    @Test func capacityIsRoundedUpToPowerOfTwo() {
        #expect(SampleRing(minimumCapacity: 1_000).capacity == 1_024)
        #expect(SampleRing(minimumCapacity: 4_096).capacity == 4_096)
        #expect(SampleRing(minimumCapacity: 0).capacity == 1)
    }

    @Test func readsInOrderAcrossWrapAround() {
        let ring = SampleRing(minimumCapacity: 8)
        var buffer = [Float](repeating: -1, count: 5)
        var chunks: [SampleSpan] = []
        var values: [Float] = []
        for block in 0..<6 {
            ring.write(Self.ramp(from: UInt64(block * 3), count: 3))
            let chunk = buffer.withUnsafeMutableBufferPointer { ring.read(into: $0) }
            chunks.append(chunk)
            values += buffer[0..<chunk.count]
        }
        #expect(chunks.map(\.start) == [0, 3, 6, 9, 12, 15])
        #expect(values == Self.ramp(from: 0, count: 18))
        #expect(ring.totalDropped == 0 && ring.readPosition == 18 && ring.totalWritten == 18)
        let empty = buffer.withUnsafeMutableBufferPointer { ring.read(into: $0) }
        #expect(empty == SampleSpan(start: 18, count: 0))
    }

    @Test func overflowKeepsNewestAndCountsDrops() {
        let ring = SampleRing(minimumCapacity: 8)
        ring.write(Self.ramp(from: 0, count: 5))
        ring.write(Self.ramp(from: 5, count: 15))  // 20 written, only 12..<20 still held
        var buffer = [Float](repeating: -1, count: 32)
        let chunk = buffer.withUnsafeMutableBufferPointer { ring.read(into: $0) }
        #expect(chunk == SampleSpan(start: 12, count: 8))
        #expect(Array(buffer[0..<8]) == Self.ramp(from: 12, count: 8))
        #expect(ring.totalDropped == 12 && ring.readPosition == 20)
    }

    @Test func readLastGivesSamplesBeforePosition() {
        let ring = SampleRing(minimumCapacity: 64)
        ring.write(Self.ramp(from: 0, count: 100))  // 36..<100 held
        var buffer = [Float](repeating: -1, count: 128)
        func last(_ count: Int, _ position: UInt64) -> (SampleSpan, [Float]) {
            let chunk = buffer.withUnsafeMutableBufferPointer { ring.readLast(count, endingAt: position, into: $0) }
            return (chunk, Array(buffer[0..<chunk.count]))
        }
        #expect(last(10, 50) == (SampleSpan(start: 40, count: 10), Self.ramp(from: 40, count: 10)))
        #expect(last(80, 100) == (SampleSpan(start: 36, count: 64), Self.ramp(from: 36, count: 64)))
        #expect(last(5, 1_000).0 == SampleSpan(start: 95, count: 5))  // clamped to what was written
        #expect(last(5, 30).0.count == 0)  // already overwritten
        // Look-back is not consumption.
        #expect(ring.readPosition == 0 && ring.totalDropped == 0)
    }

    /// Real producer and consumer threads, ≥ 10 million samples in random block sizes. The
    /// producer paces itself like a sound card the consumer keeps up with (it waits while half the
    /// ring is unread; the ring itself never makes it wait), so nothing may be lost.
    @Test func keptUpStreamArrivesCompleteAndInOrder() throws {
        let report = try Self.stream(total: 10_000_000, capacity: 1 << 16, pacedProducer: true, consumerPause: nil, seed: 1)
        #expect(report.delivered == 10_000_000)
        #expect(report.dropped == 0 && report.gaps == 0)
    }

    /// An unpaced producer outrunning the consumer: samples are lost, but each one is counted.
    @Test func overrunStreamCountsEveryLostSample() throws {
        let report = try Self.stream(total: 10_000_000, capacity: 1 << 16, pacedProducer: false, consumerPause: nil, seed: 2)
        #expect(report.delivered + report.dropped == 10_000_000)
        #expect(report.gaps == report.dropped)
    }

    /// A consumer that keeps sleeping behind a small ring, so the producer often laps it in the
    /// middle of a copy: drops must happen, be counted exactly, and never let an overwritten
    /// sample through. Look-back before the newest sample stays exact under the same races.
    @Test func slowConsumerDropsOnlyCountedSamples() throws {
        let report = try Self.stream(total: 4_000_000, capacity: 1 << 10, pacedProducer: false, consumerPause: 0.000_2, seed: 3)
        #expect(report.dropped > 0)
        #expect(report.delivered + report.dropped == 4_000_000)
        #expect(report.gaps == report.dropped)
        #expect(report.lookBacks > 0)
    }

    struct StreamReport: Sendable {
        var delivered: UInt64 = 0
        var dropped: UInt64 = 0
        /// Samples between one chunk's end and the next chunk's start, summed.
        var gaps: UInt64 = 0
        var lookBacks = 0
    }

    struct Mismatch: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs a producer and a consumer thread; the consumer checks every value and chunk boundary
    /// and, when it pauses, also checks a look-back before the newest sample after each read.
    static func stream(total: UInt64, capacity: Int, pacedProducer: Bool, consumerPause: TimeInterval?, seed: UInt64) throws -> StreamReport {
        let ring = SampleRing(minimumCapacity: capacity)
        let producer = JoinableThread { () -> Void in
            var generator = SeededGenerator(seed: seed)
            var block = [Float](repeating: 0, count: 4_096)
            var position: UInt64 = 0
            while position < total {
                while pacedProducer, position - ring.readPosition > UInt64(ring.capacity / 2) { sched_yield() }
                let count = Int(min(UInt64(Int.random(in: 1...block.count, using: &generator)), total - position))
                for index in 0..<count { block[index] = value(at: position + UInt64(index)) }
                block.withUnsafeBufferPointer { ring.write(UnsafeBufferPointer(rebasing: $0[0..<count])) }
                position += UInt64(count)
            }
        }
        let consumer = JoinableThread { () -> Result<StreamReport, Mismatch> in
            var generator = SeededGenerator(seed: seed &+ 100)
            var buffer = [Float](repeating: 0, count: 4_096)
            var lookBack = [Float](repeating: 0, count: 256)
            var report = StreamReport()
            var expectedStart: UInt64 = 0
            while ring.readPosition < total {
                let wanted = Int.random(in: 1...buffer.count, using: &generator)
                let chunk = buffer.withUnsafeMutableBufferPointer { ring.read(into: UnsafeMutableBufferPointer(rebasing: $0[0..<wanted])) }
                if chunk.count == 0 {
                    sched_yield()
                    continue
                }
                guard chunk.start >= expectedStart else {
                    return .failure(Mismatch(description: "chunk at \(chunk.start) overlaps previous end \(expectedStart)"))
                }
                if let mismatch = firstMismatch(buffer, chunk) { return .failure(mismatch) }
                report.gaps += chunk.start - expectedStart
                report.delivered += UInt64(chunk.count)
                expectedStart = chunk.end
                if let consumerPause {
                    let now = ring.totalWritten
                    let past = lookBack.withUnsafeMutableBufferPointer { ring.readLast($0.count, endingAt: now, into: $0) }
                    if past.count > 0 {
                        guard past.end == now else {
                            return .failure(Mismatch(description: "look-back ended at \(past.end), asked for \(now)"))
                        }
                        if let mismatch = firstMismatch(lookBack, past) { return .failure(mismatch) }
                        report.lookBacks += 1
                    }
                    if Bool.random(using: &generator) { Thread.sleep(forTimeInterval: consumerPause) }
                }
            }
            return .success(report)
        }
        producer.join()
        var report = try consumer.join().get()
        report.dropped = ring.totalDropped
        #expect(ring.totalWritten == total && ring.readPosition == total)
        return report
    }

    static func firstMismatch(_ buffer: [Float], _ chunk: SampleSpan) -> Mismatch? {
        buffer.withUnsafeBufferPointer { values in
            for index in 0..<chunk.count where values[index] != value(at: chunk.start + UInt64(index)) {
                return Mismatch(description: "position \(chunk.start + UInt64(index)) holds \(values[index])")
            }
            return nil
        }
    }
}

/// A real OS thread whose result can be awaited: the ring is for threads that must never wait
/// on Swift concurrency's shared pool.
final class JoinableThread<Value: Sendable>: Sendable {
    private let finished = DispatchSemaphore(value: 0)
    private let result = Mutex<Value?>(nil)

    init(_ body: @escaping @Sendable () -> Value) {
        Thread { [self] in
            let value = body()
            result.withLock { $0 = value }
            finished.signal()
        }.start()
    }

    func join() -> Value {
        finished.wait()
        return result.withLock { $0! }
    }
}
