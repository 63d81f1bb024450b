import GRDB

/// The history database's tables, one migration per version; a migration once released is
/// never changed (a file holds the ones it went through, in `grdb_migrations`).
enum HistorySchema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration(Version.exchanges) { db in
            try db.create(table: Exchange.databaseTableName) { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("time", .datetime).notNull()
                table.column("source", .text).notNull()
                table.column("wake_word", .text)
                table.column("wake_score", .double)
                table.column("question", .text).notNull()
                table.column("answer", .text).notNull()
                table.column("actions", .text).notNull().defaults(to: "[]")
                table.column("skill", .text)
                table.column("origin", .text).notNull()
                table.column("error", .text)
                table.column("recording_ms", .integer)
                table.column("transcribing_ms", .integer)
                table.column("asking_ms", .integer)
                table.column("speaking_ms", .integer)
                table.column("rating", .text)
            }
            // `--since` and pruning by age.
            try db.create(index: "exchange_time", on: Exchange.databaseTableName, columns: ["time"])
        }
        migrator.registerMigration(Version.plans) { db in
            try db.create(table: PlannedAnswer.databaseTableName) { table in
                table.primaryKey("id", .text)
                table.column("kind", .text).notNull()
                table.column("due", .datetime).notNull()
                table.column("text", .text).notNull()
                table.column("language", .text)
            }
        }
        return migrator
    }

    /// Migration names, oldest first.
    enum Version {
        /// 1: questions and answers.
        static let exchanges = "v1-exchanges"
        /// 2: answers planned for later (reminders, the timer).
        static let plans = "v2-plans"
    }
}
