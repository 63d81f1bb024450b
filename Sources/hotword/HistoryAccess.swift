import Foundation
import HotwordAssistant
import HotwordHistory

/// The history database for the commands that read or write it (`history`, `feedback`, `ask`).
enum HistoryAccess {
    /// The store `[history]` names; nil when there is none yet and `creating` is false.
    /// Throws when the history is off or the file cannot be opened.
    static func open(_ settings: HistorySettings, creating: Bool) throws -> HistoryStore? {
        guard settings.enabled else { throw CommandFailure("the history is off ([history] enabled = false)") }
        guard creating || HistoryStore.exists(at: settings.file) else { return nil }
        do {
            return try HistoryStore(file: settings.file, limits: settings.limits)
        } catch {
            throw CommandFailure("\(error)")
        }
    }
}
