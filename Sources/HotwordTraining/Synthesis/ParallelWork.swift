import Dispatch
import Foundation

/// Runs independent, mostly waiting work items (each starts a program and waits for it) on a
/// fixed number of threads. Results come back in item order, so output never depends on timing.
enum ParallelWork {
    static func map<T: Sendable>(count: Int, workers: Int, _ body: @escaping @Sendable (Int) -> T) -> [T] {
        let results = ResultSlots<T>(count: count)
        let next = Counter()
        let group = DispatchGroup()
        for _ in 0..<max(1, min(workers, count)) {
            // Dedicated threads rather than the cooperative pool: every item blocks in waitpid.
            group.enter()
            Thread {
                while case let index = next.take(), index < count { results.set(index, body(index)) }
                group.leave()
            }.start()
        }
        group.wait()
        return results.values()
    }
}

/// Hands out item numbers 0, 1, 2... to worker threads.
private final class Counter: @unchecked Sendable {  // guarded by `lock`
    private let lock = NSLock()
    private var value = 0

    func take() -> Int {
        lock.withLock {
            defer { value += 1 }
            return value
        }
    }
}

/// One slot per item; each written once by the thread that ran the item.
private final class ResultSlots<T: Sendable>: @unchecked Sendable {  // guarded by `lock`
    private let lock = NSLock()
    private var slots: [T?]

    init(count: Int) { slots = Array(repeating: nil, count: count) }

    func set(_ index: Int, _ value: T) { lock.withLock { slots[index] = value } }
    func values() -> [T] { lock.withLock { slots.map { $0! } } }
}
