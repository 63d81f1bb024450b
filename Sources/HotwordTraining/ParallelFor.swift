import Dispatch
import Foundation
import Synchronization

/// The one way training spreads work over threads: items `0..<count`, each taken in turn by the
/// next free thread (uneven work balances), the call returning once all are done. Results never
/// depend on the threads: each item is run once, and `map` returns them in item order.
enum ParallelFor {
    /// Runs `body` for every item of `0..<count` on up to `threads` threads (the calling one
    /// alone when that is 1). `body` runs concurrently for different items.
    static func run(_ count: Int, threads: Int, _ body: (Int) -> Void) {
        let workers = min(threads, count)
        guard workers > 1 else {
            for index in 0..<count { body(index) }
            return
        }
        withoutActuallyEscaping(body) { body in
            let items = Items(count: count, body: body)
            if workers <= ProcessInfo.processInfo.activeProcessorCount {
                DispatchQueue.concurrentPerform(iterations: workers) { _ in items.runUntilDone() }
            } else {
                // More workers than cores: the items wait (for programs) more than they compute,
                // and Dispatch would run no more of them at a time than there are cores.
                // A Thread lets go of its closure some time after it ran, so the threads hold the
                // items weakly: `body` must not outlive this call.
                let group = DispatchGroup()
                for _ in 0..<workers {
                    group.enter()
                    Thread { [weak items] in
                        items?.runUntilDone()
                        group.leave()
                    }.start()
                }
                withExtendedLifetime(items) { group.wait() }
            }
        }
    }

    /// `transform` of every item of `0..<count`, in item order, computed as `run` runs them.
    static func map<Result>(_ count: Int, threads: Int, _ transform: (Int) -> Result) -> [Result] {
        var results = [Result?](repeating: nil, count: count)
        results.withUnsafeMutableBufferPointer { results in
            let output = Output(results)
            run(count, threads: threads) { output.buffer[$0] = transform($0) }
        }
        return results.map { $0! }
    }
}

/// The items still to run, handed out one at a time.
private final class Items: @unchecked Sendable {  // @unchecked: `body` is not Sendable, but each item runs once, and `run` returns only after every thread is done with it
    private let count: Int
    private let body: (Int) -> Void
    private let next = Atomic(0)

    init(count: Int, body: @escaping (Int) -> Void) {
        self.count = count
        self.body = body
    }

    func runUntilDone() {
        while case let index = next.wrappingAdd(1, ordering: .relaxed).oldValue, index < count {
            body(index)
        }
    }
}

/// A results buffer each item writes its own slot of.
private struct Output<Result>: @unchecked Sendable {  // @unchecked: threads write disjoint slots, and `map` reads them after `run` returns
    let buffer: UnsafeMutableBufferPointer<Result?>

    init(_ buffer: UnsafeMutableBufferPointer<Result?>) { self.buffer = buffer }
}
