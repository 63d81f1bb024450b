import Foundation
import GRDB

/// How much history is kept: older and surplus exchanges are deleted as new ones come.
public struct HistoryLimits: Sendable, Equatable {
    /// Exchanges older than this many days go (0: no age limit).
    public var keepDays: Int
    /// At most this many exchanges are kept, the newest (0: no count limit).
    public var maxRows: Int

    public init(keepDays: Int = 90, maxRows: Int = 10_000) {
        self.keepDays = keepDays
        self.maxRows = maxRows
    }
}

/// What `HistoryStore.exchanges(_:)` returns.
public struct HistoryQuery: Sendable, Equatable {
    /// The newest this many (nil: all that match).
    public var last: Int?
    /// Only exchanges whose question or answer contains this text (ASCII letters in any case).
    public var search: String?
    /// Only exchanges asked at or after this moment.
    public var since: Date?

    public init(last: Int? = nil, search: String? = nil, since: Date? = nil) {
        self.last = last
        self.search = search
        self.since = since
    }
}

/// The conversation history in SQLite (`history.sqlite`): every exchange, and the answers
/// planned for later. Write-ahead logging, so a reader (`hotword history`) never waits for the
/// writer (`hotword run`) nor the writer for it, and a process killed mid-write leaves every
/// committed exchange in place and the file intact. Each call is one transaction and blocks
/// its caller: keep it off threads that must not wait (the assistant writes from a queue of
/// its own, `HistoryRecorder`).
public final class HistoryStore: Sendable {
    public let file: URL
    public let limits: HistoryLimits
    private let pool: DatabasePool

    /// Opens `file`, creating it (and its folder, mode 0700) if needed, and brings its tables
    /// up to this version.
    public init(file: URL, limits: HistoryLimits = HistoryLimits()) throws(HistoryError) {
        self.file = file
        self.limits = limits
        let path = file.path
        do {
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw .cannotOpen(path: path, reason: "cannot create its folder (\(error.localizedDescription))")
        }
        var configuration = Configuration()
        configuration.journalMode = .wal
        // Another process (`hotword ask` beside `hotword run`) may hold the write lock a moment.
        configuration.busyMode = .timeout(5)
        configuration.label = "hotword.history"
        // Questions are private: the file is its owner's alone (SQLite gives the -wal and -shm
        // files the database's mode), whatever the umask.
        if !FileManager.default.fileExists(atPath: path) {
            guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                throw .cannotOpen(path: path, reason: "cannot create the file")
            }
        }
        // Processes opening a new file at once (`hotword history` while `hotword run` creates it)
        // all see it without tables, and those that create them second fail; a few tries later
        // they find them made.
        var attempt = 1
        while true {
            do {
                pool = try Self.openAndMigrate(path: path, configuration: configuration)
                break
            } catch is DatabaseError where attempt < Self.openingAttempts {
                attempt += 1
                Thread.sleep(forTimeInterval: 0.05)
            } catch {
                throw HistoryError.from(error, path: path, operation: "opening")
            }
        }
    }

    private static let openingAttempts = 5

    private static func openAndMigrate(path: String, configuration: Configuration) throws -> DatabasePool {
        let pool = try DatabasePool(path: path, configuration: configuration)
        let migrator = HistorySchema.migrator
        let (superseded, unknown) = try pool.read { db in
            (try migrator.hasBeenSuperseded(db),
             try migrator.appliedIdentifiers(db).subtracting(migrator.migrations).sorted())
        }
        if superseded || !unknown.isEmpty { throw HistoryError.newerVersion(path: path, unknown: unknown) }
        try migrator.migrate(pool)
        return pool
    }

    /// Whether `file` exists (so a reader can tell "no history yet" without creating one).
    public static func exists(at file: URL) -> Bool {
        FileManager.default.fileExists(atPath: file.path)
    }

    // MARK: Exchanges

    /// Records `exchange` and applies the limits; returns it with its id.
    @discardableResult
    public func record(_ exchange: Exchange) throws(HistoryError) -> Exchange {
        try write("recording an exchange") { db in
            var inserted = exchange.bounded
            try inserted.insert(db)
            try self.prune(db, now: Date())
            // As stored (times to the millisecond), or as given when the limits left no room for it.
            return try Exchange.fetchOne(db, key: inserted.id) ?? inserted
        }
    }

    /// Sets the rating of exchange `id`; false when there is no such exchange (any more).
    @discardableResult
    public func rate(exchange id: Int64, _ rating: Exchange.Rating) throws(HistoryError) -> Bool {
        try write("rating an exchange") { db in
            try Exchange.filter(key: id).updateAll(db, Exchange.Field.rating.set(to: rating.rawValue)) > 0
        }
    }

    /// The exchanges `query` asks for, oldest first.
    public func exchanges(_ query: HistoryQuery = HistoryQuery()) throws(HistoryError) -> [Exchange] {
        try read("reading exchanges") { db in
            var request = Exchange.all()
            if let since = query.since { request = request.filter(Exchange.Field.time >= since) }
            if let search = query.search, !search.isEmpty {
                let pattern = "%" + search.replacingOccurrences(of: "\\", with: "\\\\")
                    .replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_") + "%"
                request = request.filter(sql: "question LIKE ? ESCAPE '\\' OR answer LIKE ? ESCAPE '\\'",
                                         arguments: [pattern, pattern])
            }
            request = request.order(Exchange.Field.id.desc)
            if let last = query.last { request = request.limit(last) }
            return try request.fetchAll(db).reversed()
        }
    }

    /// The `n`th newest exchange SUSI answered (1: the last one); nil when there are fewer.
    public func answered(nthLast n: Int) throws(HistoryError) -> Exchange? {
        try read("reading exchanges") { db in
            try Exchange.filter(Exchange.Field.origin == Exchange.Origin.susi.rawValue)
                .order(Exchange.Field.id.desc).limit(1, offset: max(0, n - 1)).fetchOne(db)
        }
    }

    /// The exchange numbered `id` (`#5` in `hotword history`); nil when there is none.
    public func exchange(id: Int64) throws(HistoryError) -> Exchange? {
        try read("reading exchanges") { db in try Exchange.fetchOne(db, key: id) }
    }

    /// Deletes every exchange and compacts the file, so nothing of them stays on disk.
    /// Returns how many there were. Planned answers stay.
    @discardableResult
    public func clear() throws(HistoryError) -> Int {
        let count = try write("clearing the history") { db in try Exchange.deleteAll(db) }
        do {
            try pool.vacuum()
            // The old pages are in the write-ahead log too until it is checkpointed and truncated.
            try pool.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
        } catch {
            throw HistoryError.from(error, path: file.path, operation: "compacting")
        }
        return count
    }

    // MARK: Planned answers

    public func plan(_ answer: PlannedAnswer) throws(HistoryError) {
        try write("storing a planned answer") { db in
            if answer.kind == .timer { try PlannedAnswer.filter(PlannedAnswer.Field.kind == PlannedAnswer.Kind.timer.rawValue).deleteAll(db) }
            try answer.save(db)
        }
    }

    /// Forgets a planned answer (it was said, or dropped).
    public func removePlan(id: String) throws(HistoryError) {
        try write("removing a planned answer") { db in _ = try PlannedAnswer.deleteOne(db, key: id) }
    }

    /// Forgets the timer.
    public func removeTimer() throws(HistoryError) {
        try write("clearing the timer") { db in
            _ = try PlannedAnswer.filter(PlannedAnswer.Field.kind == PlannedAnswer.Kind.timer.rawValue).deleteAll(db)
        }
    }

    /// Every planned answer not yet said, soonest first.
    public func plans() throws(HistoryError) -> [PlannedAnswer] {
        try read("reading planned answers") { db in try PlannedAnswer.order(PlannedAnswer.Field.due).fetchAll(db) }
    }

    // MARK: Internals

    private func prune(_ db: Database, now: Date) throws {
        if limits.keepDays > 0 {
            try Exchange.filter(Exchange.Field.time < now.addingTimeInterval(-Double(limits.keepDays) * 86_400)).deleteAll(db)
        }
        if limits.maxRows > 0 {
            try db.execute(sql: "DELETE FROM exchange WHERE id <= (SELECT id FROM exchange ORDER BY id DESC LIMIT 1 OFFSET ?)",
                           arguments: [limits.maxRows])
        }
    }

    private func write<T>(_ operation: String, _ body: (Database) throws -> T) throws(HistoryError) -> T {
        do { return try pool.write(body) } catch { throw HistoryError.from(error, path: file.path, operation: operation) }
    }

    private func read<T>(_ operation: String, _ body: (Database) throws -> T) throws(HistoryError) -> T {
        do { return try pool.read(body) } catch { throw HistoryError.from(error, path: file.path, operation: operation) }
    }
}
