import Foundation
import GRDB

/// One question and its answer, as the history keeps it.
public struct Exchange: Sendable, Equatable, Codable {
    /// How the question came.
    public enum Source: String, Sendable, Codable, CaseIterable {
        /// Spoken after a wake word (`hotword run`).
        case voice
        /// Typed (`hotword ask`).
        case text
    }

    /// Who answered.
    public enum Origin: String, Sendable, Codable, CaseIterable {
        /// SUSI's server: the answer can be rated.
        case susi
        /// hotword itself (a voice phrase: help, a rating).
        case local
        /// Nobody: the answer is an apology for `error`.
        case error
    }

    public enum Rating: String, Sendable, Codable, CaseIterable {
        case positive, negative
    }

    /// How long each stage took, in milliseconds; nil where a stage did not happen.
    public struct Timings: Sendable, Equatable, Codable {
        /// The spoken question's length.
        public var recording: Int?
        public var transcribing: Int?
        public var asking: Int?
        /// Until the answer had been said (or was interrupted).
        public var speaking: Int?

        public init(recording: Int? = nil, transcribing: Int? = nil, asking: Int? = nil, speaking: Int? = nil) {
            self.recording = recording
            self.transcribing = transcribing
            self.asking = asking
            self.speaking = speaking
        }
    }

    /// Given by the store; nil before the exchange is recorded.
    public var id: Int64?
    /// When the question was asked.
    public var time: Date
    public var source: Source
    public var wakeWord: String?
    public var wakeScore: Double?
    /// The transcript (or the typed question).
    public var question: String
    /// The answer as shown, one line per printed step.
    public var answer: String
    /// The answer's SUSI actions as JSON (an array), "[]" when there were none.
    public var actions: String
    /// The skill that answered (`answers[0].skills[0]`), as SUSI gave its path.
    public var skill: String?
    public var origin: Origin
    /// What went wrong, for `origin == .error`.
    public var error: String?
    public var timings: Timings
    public var rating: Rating?

    public init(id: Int64? = nil, time: Date, source: Source, wakeWord: String? = nil, wakeScore: Double? = nil,
                question: String, answer: String, actions: String = "[]", skill: String? = nil, origin: Origin,
                error: String? = nil, timings: Timings = Timings(), rating: Rating? = nil) {
        self.id = id
        self.time = time
        self.source = source
        self.wakeWord = wakeWord
        self.wakeScore = wakeScore
        self.question = question
        self.answer = answer
        self.actions = actions
        self.skill = skill
        self.origin = origin
        self.error = error
        self.timings = timings
        self.rating = rating
    }
}

/// The `exchange` table's columns (see `HistorySchema`).
extension Exchange: FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "exchange"

    enum Field {
        static let id = Column("id"), time = Column("time")
        static let origin = Column("origin"), rating = Column("rating")
    }

    public init(row: Row) throws {
        self.init(id: row["id"], time: row["time"], source: Source(rawValue: row["source"]) ?? .voice,
                  wakeWord: row["wake_word"], wakeScore: row["wake_score"], question: row["question"], answer: row["answer"],
                  actions: row["actions"], skill: row["skill"], origin: Origin(rawValue: row["origin"]) ?? .error,
                  error: row["error"],
                  timings: Timings(recording: row["recording_ms"], transcribing: row["transcribing_ms"],
                                   asking: row["asking_ms"], speaking: row["speaking_ms"]),
                  rating: (row["rating"] as String?).flatMap(Rating.init(rawValue:)))
    }

    public func encode(to container: inout PersistenceContainer) throws {
        container["id"] = id
        container["time"] = time
        container["source"] = source.rawValue
        container["wake_word"] = wakeWord
        container["wake_score"] = wakeScore
        container["question"] = question
        container["answer"] = answer
        container["actions"] = actions
        container["skill"] = skill
        container["origin"] = origin.rawValue
        container["error"] = error
        container["recording_ms"] = timings.recording
        container["transcribing_ms"] = timings.transcribing
        container["asking_ms"] = timings.asking
        container["speaking_ms"] = timings.speaking
        container["rating"] = rating?.rawValue
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

extension Exchange {
    /// The most characters one text of an exchange keeps (its question, answer, error, actions):
    /// SUSI's are a few hundred, a server could send megabytes, and a row is read whole.
    public static let maximumTextCharacters = 64 * 1024

    /// This exchange with every text within `maximumTextCharacters`: cut with a note, the
    /// actions (JSON, which a cut would break) replaced by none.
    var bounded: Exchange {
        func cut(_ text: String) -> String {
            text.count <= Self.maximumTextCharacters ? text : text.prefix(Self.maximumTextCharacters) + " … (cut: longer than \(Self.maximumTextCharacters) characters)"
        }
        var bounded = self
        bounded.question = cut(question)
        bounded.answer = cut(answer)
        bounded.error = error.map(cut)
        if actions.count > Self.maximumTextCharacters { bounded.actions = "[]" }
        return bounded
    }
}
