import Dispatch
import HotwordAudio
import Synchronization

/// An audio source that hears what the test says, as fast as it is read: `say` queues samples,
/// `read` hands them out in order and waits while none are queued (as a quiet microphone
/// would, without the silence), until `close()`.
public final class QueuedAudio: AudioSource {
    private struct Queue {
        var samples: [Float] = []
        var next = 0
        var closed = false
    }

    private let queue = Mutex(Queue())
    private let queued = DispatchSemaphore(value: 0)

    public init() {}

    /// Queues 16 kHz samples after what is already queued.
    public func say(_ samples: [Float]) {
        queue.withLock { $0.samples += samples }
        queued.signal()
    }

    /// Samples queued and not yet read.
    public var unread: Int {
        queue.withLock { $0.samples.count - $0.next }
    }

    public func read(into samples: UnsafeMutableBufferPointer<Float>) -> Int {
        while true {
            let (count, closed) = queue.withLock { queue in
                let count = min(samples.count, queue.samples.count - queue.next)
                for index in 0..<count { samples[index] = queue.samples[queue.next + index] }
                queue.next += count
                if queue.next == queue.samples.count {
                    queue.samples.removeAll(keepingCapacity: true)
                    queue.next = 0
                }
                return (count, queue.closed)
            }
            if count > 0 || closed || samples.isEmpty { return count }
            queued.wait()
        }
    }

    public func close() {
        queue.withLock { $0.closed = true }
        queued.signal()
    }
}
