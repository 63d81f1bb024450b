import Foundation
import GRDB

/// An answer to be said later — a SUSI reminder (`plan_delay`/`plan_date`) or the timer
/// (`timer_set`) — kept until it has been said, so a restart does not lose it.
public struct PlannedAnswer: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        /// A planned `answer` action: `text` is said.
        case answer
        /// The timer: the cue, then `text`. There is at most one.
        case timer
    }

    /// Chosen by whoever plans it (a UUID), so it can be stored without waiting for the store.
    public var id: String
    public var kind: Kind
    /// When it is due.
    public var due: Date
    public var text: String
    /// ISO 639-1, when SUSI said which language `text` is in.
    public var language: String?

    public init(id: String = UUID().uuidString, kind: Kind, due: Date, text: String, language: String? = nil) {
        self.id = id
        self.kind = kind
        self.due = due
        self.text = text
        self.language = language
    }
}

extension PlannedAnswer: FetchableRecord, PersistableRecord {
    public static let databaseTableName = "plan"

    enum Field {
        static let kind = Column("kind"), due = Column("due")
    }

    public init(row: Row) throws {
        self.init(id: row["id"], kind: Kind(rawValue: row["kind"]) ?? .answer, due: row["due"], text: row["text"],
                  language: row["language"])
    }

    public func encode(to container: inout PersistenceContainer) throws {
        container["id"] = id
        container["kind"] = kind.rawValue
        container["due"] = due
        container["text"] = text
        container["language"] = language
    }
}
