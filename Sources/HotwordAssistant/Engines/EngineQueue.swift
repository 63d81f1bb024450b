import Dispatch

/// A serial queue that owns a C engine's state that is not thread-safe (pocketsphinx's decoder,
/// espeak-ng's globals): every use of the engine runs here, one job at a time, and blocking work
/// (seconds of decoding) stays off Swift's cooperative thread pool.
final class EngineQueue: Sendable {
    private let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label)
    }

    /// Runs `work` on the queue after every job submitted before it, and returns its result.
    func run<Value: Sendable, Failure: Error>(
        _ work: @escaping @Sendable () throws(Failure) -> Value
    ) async throws(Failure) -> Value {
        let result: Result<Value, Failure> = await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: Result(catching: work)) }
        }
        return try result.get()
    }

    /// Runs `work` on the queue after every job submitted before it, blocking the calling thread
    /// until it is done: for callers on threads of their own (a command, the listener thread).
    /// Never call it from the queue itself (it would wait for itself) nor from Swift's
    /// cooperative pool (blocking its few threads).
    func runBlocking<Value, Failure: Error>(_ work: () throws(Failure) -> Value) throws(Failure) -> Value {
        let result: Result<Value, Failure> = queue.sync { Result(catching: work) }
        return try result.get()
    }

    /// Queues `work` without waiting for it (safe from any thread, the queue's own included).
    func enqueue(_ work: @escaping @Sendable () -> Void) {
        queue.async(execute: work)
    }
}
