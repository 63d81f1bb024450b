import Foundation
import HotwordHistory
import Logging

/// The history database as the assistant uses it: every call runs on a queue of its own, so
/// neither the audio threads nor the conversation ever wait for the disk. A failure (a full
/// disk, say) is reported once through `onFailure` when it begins and logged when writing works
/// again; in between the assistant goes on as if there were no history.
final class HistoryRecorder: Sendable {
    let store: HistoryStore
    private let queue = DispatchQueue(label: "hotword.history")
    /// Touched only on `queue`.
    private nonisolated(unsafe) var failing = false
    private let onFailure: @Sendable (HistoryError) -> Void
    private let logger = Logger(label: "hotword.history")

    init(store: HistoryStore, onFailure: @escaping @Sendable (HistoryError) -> Void) {
        self.store = store
        self.onFailure = onFailure
    }

    /// The exchange as recorded (with its id); nil when it could not be.
    func record(_ exchange: Exchange) async -> Exchange? {
        await perform { (store) throws(HistoryError) in try store.record(exchange) }
    }

    func rate(exchange id: Int64, _ rating: Exchange.Rating) async {
        _ = await perform { (store) throws(HistoryError) in try store.rate(exchange: id, rating) }
    }

    func plan(_ answer: PlannedAnswer) async {
        _ = await perform { (store) throws(HistoryError) in try store.plan(answer) }
    }

    func removePlan(id: String) async {
        _ = await perform { (store) throws(HistoryError) in try store.removePlan(id: id) }
    }

    func removeTimer() async {
        _ = await perform { (store) throws(HistoryError) in try store.removeTimer() }
    }

    func plans() async -> [PlannedAnswer] {
        await perform { (store) throws(HistoryError) in try store.plans() } ?? []
    }

    private func perform<T: Sendable>(_ body: @escaping @Sendable (HistoryStore) throws(HistoryError) -> T) async -> T? {
        await withCheckedContinuation { continuation in
            queue.async { [self] in
                do throws(HistoryError) {
                    let result = try body(store)
                    if failing {
                        failing = false
                        logger.notice("the history database \(store.file.path) works again")
                    }
                    continuation.resume(returning: result)
                } catch {
                    if !failing {
                        failing = true
                        onFailure(error)
                    } else {
                        logger.debug("\(error)")
                    }
                    continuation.resume(returning: nil)
                }
            }
        }
    }
}
