import Foundation

/// Runs blocking work (playing audio) on a thread of its own, so an async command never holds
/// a thread of Swift's cooperative pool while it waits for a device.
enum BlockingWork {
    static func run<Failure: Error>(_ work: @escaping @Sendable () throws(Failure) -> Void) async throws(Failure) {
        let result: Result<Void, Failure> = await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: Result(catching: work)) }.start()
        }
        try result.get()
    }
}
