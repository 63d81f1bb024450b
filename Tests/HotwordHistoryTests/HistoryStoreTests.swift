import Foundation
import Synchronization
import GRDB
@testable import HotwordHistory
import HotwordTestSupport
import Testing

@Suite("History database")
struct HistoryStoreTests {
    static func exchange(_ question: String, at time: Date = Date(), origin: Exchange.Origin = .susi,
                         skill: String? = "/susi_skill_data/models/general/Knowledge/en/aboutsusi.txt") -> Exchange {
        Exchange(time: time, source: .voice, wakeWord: "hey susi", wakeScore: 0.93, question: question,
                 answer: "SUSI: an answer to \(question)", actions: #"[{"type":"answer","expression":"an answer"}]"#,
                 skill: skill, origin: origin,
                 timings: Exchange.Timings(recording: 1_800, transcribing: 420, asking: 230, speaking: 2_100))
    }

    private func withFolder<T>(_ body: (URL) throws -> T) throws -> T {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        return try body(folder)
    }

    @Test func anExchangeReadsBackAsRecordedWithItsIdAndWALIsOn() throws {
        try withFolder { folder in
            let file = folder.appendingPathComponent("state/history.sqlite")
            let store = try HistoryStore(file: file)
            let recorded = try store.record(Self.exchange("who are you"))
            #expect(recorded.id == 1)
            #expect(try store.exchanges() == [recorded])
            let mode = try DatabaseQueue(path: file.path).read { try String.fetchOne($0, sql: "PRAGMA journal_mode") }
            #expect(mode == "wal")
            let folderMode = try FileManager.default.attributesOfItem(atPath: file.deletingLastPathComponent().path)[.posixPermissions] as? Int
            #expect(folderMode == 0o700)
            for suffix in ["", "-wal", "-shm"] {
                let mode = try FileManager.default.attributesOfItem(atPath: file.path + suffix)[.posixPermissions] as? Int
                #expect(mode == 0o600, "history.sqlite\(suffix)")
            }
        }
    }

    /// `hotword history` may open the file while `hotword run` is creating it: both opens succeed
    /// (SQLite answers "busy" at once where waiting could deadlock, and opening tries again).
    /// An answer of 100 MB made a 210 MB row; each text is kept to 64 Ki characters.
    @Test func aHugeAnswerIsCutToTheLimitWithANote() throws {
        try withFolder { folder in
            let store = try HistoryStore(file: folder.appendingPathComponent("history.sqlite"))
            var exchange = Self.exchange("read me everything")
            exchange.answer = String(repeating: "a", count: 1 << 20)
            exchange.actions = "[" + String(repeating: "1,", count: 1 << 19) + "1]"
            let recorded = try store.record(exchange)
            let stored = try #require(try store.exchanges().first)
            #expect(stored == recorded)
            #expect(stored.answer.hasPrefix(String(repeating: "a", count: Exchange.maximumTextCharacters) + " … (cut: longer than 65536 characters)"))
            #expect(stored.answer.count < Exchange.maximumTextCharacters + 100)
            #expect(stored.actions == "[]")
            #expect(stored.question == "read me everything")
        }
    }

    @Test func openingANewFileTwiceAtOnceSucceedsBothTimes() throws {
        try withFolder { folder in
            for round in 0..<20 {
                let file = folder.appendingPathComponent("history-\(round).sqlite")
                let failures = Mutex<[String]>([])
                DispatchQueue.concurrentPerform(iterations: 3) { _ in
                    do { _ = try HistoryStore(file: file) } catch { failures.withLock { $0.append("\(error)") } }
                }
                #expect(failures.withLock { $0 }.isEmpty, "round \(round)")
            }
        }
    }

    @Test func anEmptyFileIsMigratedToTheCurrentVersion() throws {
        try withFolder { folder in
            let file = folder.appendingPathComponent("history.sqlite")
            #expect(FileManager.default.createFile(atPath: file.path, contents: Data()))
            let store = try HistoryStore(file: file)
            try store.record(Self.exchange("what time is it"))
            try store.plan(PlannedAnswer(kind: .answer, due: Date(), text: "Tea is ready."))
            #expect(try store.exchanges().map(\.question) == ["what time is it"])
            let applied = try DatabaseQueue(path: file.path).read { try HistorySchema.migrator.appliedMigrations($0) }
            #expect(applied == [HistorySchema.Version.exchanges, HistorySchema.Version.plans])
        }
    }

    @Test func aFileOfThePreviousVersionKeepsItsExchangesAndGainsPlans() throws {
        try withFolder { folder in
            let file = folder.appendingPathComponent("history.sqlite")
            let old = try DatabaseQueue(path: file.path)
            try HistorySchema.migrator.migrate(old, upTo: HistorySchema.Version.exchanges)
            try old.write { db in
                try db.execute(sql: """
                    INSERT INTO exchange (time, source, question, answer, origin, rating)
                    VALUES ('2026-01-02 03:04:05.000', 'text', 'old question', 'SUSI: old answer', 'susi', 'positive')
                    """)
                #expect(try !db.tableExists("plan"))
            }
            try old.close()

            let store = try HistoryStore(file: file)
            let kept = try #require(try store.exchanges().first)
            #expect(kept.question == "old question" && kept.rating == .positive && kept.source == .text)
            #expect(kept.time == Date(timeIntervalSince1970: 1_767_323_045))
            try store.plan(PlannedAnswer(kind: .timer, due: Date(), text: "Time is up."))
            #expect(try store.plans().count == 1)
        }
    }

    @Test func aFileANewerVersionChangedIsRefusedNamingIt() throws {
        try withFolder { folder in
            let file = folder.appendingPathComponent("history.sqlite")
            _ = try HistoryStore(file: file)
            try DatabaseQueue(path: file.path).write { db in
                try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v3-something-new')")
            }
            #expect(throws: HistoryError.newerVersion(path: file.path, unknown: ["v3-something-new"])) {
                try HistoryStore(file: file)
            }
        }
    }

    @Test func aFileThatIsNoDatabaseIsATypedErrorNamingIt() throws {
        try withFolder { folder in
            let file = folder.appendingPathComponent("history.sqlite")
            try Data(String(repeating: "not a database at all\n", count: 200).utf8).write(to: file)
            #expect(throws: HistoryError.notADatabase(path: file.path)) { try HistoryStore(file: file) }
            #expect(HistoryError.notADatabase(path: file.path).description.contains(file.path))
        }
    }

    @Test func theNewestMaxRowsAndKeepDaysAreKept() throws {
        try withFolder { folder in
            let store = try HistoryStore(file: folder.appendingPathComponent("history.sqlite"),
                                         limits: HistoryLimits(keepDays: 30, maxRows: 3))
            let now = Date()
            try store.record(Self.exchange("forty days ago", at: now.addingTimeInterval(-40 * 86_400)))
            try store.record(Self.exchange("twenty days ago", at: now.addingTimeInterval(-20 * 86_400)))
            #expect(try store.exchanges().map(\.question) == ["twenty days ago"])  // the old one went
            for number in 1...4 { try store.record(Self.exchange("question \(number)", at: now)) }
            #expect(try store.exchanges().map(\.question) == ["question 2", "question 3", "question 4"])
        }
    }

    @Test func lastSearchAndSinceSelectExchangesOldestFirst() throws {
        try withFolder { folder in
            let store = try HistoryStore(file: folder.appendingPathComponent("history.sqlite"))
            let start = Date(timeIntervalSince1970: 1_800_000_000)
            for (offset, question) in ["what is 100% juice", "weather in Berlin", "what is a_b", "weather in Paris"].enumerated() {
                try store.record(Self.exchange(question, at: start.addingTimeInterval(Double(offset) * 60)))
            }
            #expect(try store.exchanges(HistoryQuery(last: 2)).map(\.question) == ["what is a_b", "weather in Paris"])
            #expect(try store.exchanges(HistoryQuery(search: "WEATHER")).map(\.question) == ["weather in Berlin", "weather in Paris"])
            // % and _ are literal text, not patterns.
            #expect(try store.exchanges(HistoryQuery(search: "100%")).map(\.question) == ["what is 100% juice"])
            #expect(try store.exchanges(HistoryQuery(search: "a_b")).map(\.question) == ["what is a_b"])
            #expect(try store.exchanges(HistoryQuery(search: "answer to weather in P")).count == 1)  // answers too
            #expect(try store.exchanges(HistoryQuery(since: start.addingTimeInterval(90))).map(\.question)
                    == ["what is a_b", "weather in Paris"])
        }
    }

    @Test func theNthLastAnswerBySUSIIsFoundAndRated() throws {
        try withFolder { folder in
            let store = try HistoryStore(file: folder.appendingPathComponent("history.sqlite"))
            let first = try store.record(Self.exchange("who are you"))
            try store.record(Self.exchange("what can you do", origin: .local, skill: nil))
            let second = try store.record(Self.exchange("what time is it"))
            try store.record(Self.exchange("is it raining", origin: .error, skill: nil))
            #expect(try store.answered(nthLast: 1)?.id == second.id)
            #expect(try store.answered(nthLast: 2)?.id == first.id)
            #expect(try store.answered(nthLast: 3) == nil)
            #expect(try store.rate(exchange: try #require(first.id), .negative))
            #expect(try store.exchanges().first?.rating == .negative)
            #expect(try !store.rate(exchange: 99, .positive))
        }
    }

    @Test func clearingDeletesEveryExchangeButNoPlan() throws {
        try withFolder { folder in
            let file = folder.appendingPathComponent("history.sqlite")
            let store = try HistoryStore(file: file)
            for number in 1...20 { try store.record(Self.exchange("secret question \(number)")) }
            try store.plan(PlannedAnswer(kind: .answer, due: Date(), text: "Call mum."))
            #expect(try store.clear() == 20)
            #expect(try store.exchanges().isEmpty)
            #expect(try store.plans().map(\.text) == ["Call mum."])
            // Compacted: the questions' text is gone from the file itself.
            let bytes = try Data(contentsOf: file) + ((try? Data(contentsOf: URL(fileURLWithPath: file.path + "-wal"))) ?? Data())
            #expect(bytes.range(of: Data("secret question".utf8)) == nil)
        }
    }

    @Test func thereIsOneTimerAndPlansComeSoonestFirst() throws {
        try withFolder { folder in
            let store = try HistoryStore(file: folder.appendingPathComponent("history.sqlite"))
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            try store.plan(PlannedAnswer(kind: .answer, due: now.addingTimeInterval(600), text: "Later."))
            try store.plan(PlannedAnswer(kind: .timer, due: now.addingTimeInterval(300), text: "Time is up."))
            try store.plan(PlannedAnswer(kind: .timer, due: now.addingTimeInterval(60), text: "Time is up."))
            let soon = PlannedAnswer(kind: .answer, due: now.addingTimeInterval(30), text: "Soon.", language: "en")
            try store.plan(soon)
            #expect(try store.plans().map(\.due) == [30, 60, 600].map { now.addingTimeInterval($0) })
            #expect(try store.plans().first == soon)
            try store.removeTimer()
            try store.removePlan(id: soon.id)
            #expect(try store.plans().map(\.text) == ["Later."])
        }
    }

    @Test func aReaderSeesCommittedExchangesWhileAnotherConnectionWrites() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("history.sqlite")
        let writer = try HistoryStore(file: file, limits: HistoryLimits(keepDays: 0, maxRows: 0))
        let reader = try HistoryStore(file: file)
        let writing = Task.detached {
            for number in 1...300 { try writer.record(Self.exchange("question \(number)")) }
        }
        var counts: [Int] = []
        while counts.last != 300 {
            counts.append(try reader.exchanges().count)
            if counts.count > 100_000 { break }
        }
        try await writing.value
        #expect(counts.last == 300)
        #expect(counts == counts.sorted(), "a reader never sees an exchange disappear")
        #expect(Set(counts).count > 2, "reads interleaved with the writes: \(Set(counts).count) distinct counts")
    }

    /// The writer process is killed (SIGKILL) in the middle of writing, three times over on the
    /// same file: every exchange it reported committed is there, and the file passes SQLite's
    /// integrity check.
    @Test func aProcessKilledMidWriteLosesNothingCommittedAndLeavesTheFileIntact() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("history.sqlite")
        var committed: [Int64] = []
        for round in 1...3 {
            let writer = Process()
            writer.executableURL = Self.writerBinary
            writer.arguments = [file.path]
            let output = Pipe()
            writer.standardOutput = output
            try writer.run()
            // Let it commit a few hundred exchanges, then kill it wherever it is.
            var text = ""
            let handle = output.fileHandleForReading
            while text.split(separator: "\n").count < 200 * round {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                text += String(decoding: chunk, as: UTF8.self)
            }
            kill(writer.processIdentifier, SIGKILL)
            writer.waitUntilExit()
            text += String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
            #expect(writer.terminationReason == .uncaughtSignal, "round \(round): the writer ended by itself")
            // A partial last line is an id being printed, not yet reported.
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            committed += lines.compactMap { Int64($0) }
        }
        let check = try await DatabaseQueue(path: file.path).read { try String.fetchAll($0, sql: "PRAGMA integrity_check") }
        #expect(check == ["ok"])
        let stored = Set(try HistoryStore(file: file).exchanges().compactMap(\.id))
        #expect(committed.count >= 600)
        #expect(Set(committed).subtracting(stored).isEmpty, "lost: \(Set(committed).subtracting(stored).sorted().prefix(10))")
    }

    @Test func aFullDiskIsATypedErrorAndWritingWorksAgainOnceThereIsRoom() throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let disk: TemporaryDisk
        do { disk = try TemporaryDisk(at: folder.appendingPathComponent("disk"), bytes: 1 << 20) } catch { try Test.cancel("\(error)") }
        defer { disk.unmount() }
        let file = disk.url.appendingPathComponent("history.sqlite")
        let store = try HistoryStore(file: file)
        try store.record(Self.exchange("before the disk filled"))
        let filler = try disk.fill()
        var failure: HistoryError?
        // SQLite may still have room in pages it holds; a few exchanges later the disk is full.
        for number in 1...200 {
            do { try store.record(Self.exchange("question \(number) " + String(repeating: "x", count: 4_000))) } catch {
                failure = error
                break
            }
        }
        #expect(failure == .diskFull(path: file.path))
        #expect(failure?.description.contains("is full") == true)
        try FileManager.default.removeItem(at: filler)
        try store.record(Self.exchange("after"))
        #expect(try store.exchanges().first?.question == "before the disk filled")
        #expect(try store.exchanges().last?.question == "after")
        let check = try DatabaseQueue(path: file.path).read { try String.fetchAll($0, sql: "PRAGMA integrity_check") }
        #expect(check == ["ok"])
    }

    @Test func theDefaultFileIsInTheServicesStateDirectoryOrTheUsersStateFolder() {
        #expect(HistoryLocation.defaultFile(environment: ["STATE_DIRECTORY": "/var/lib/hotword:/var/lib/other", "HOME": "/home/u"]).path
                == "/var/lib/hotword/history.sqlite")
        #expect(HistoryLocation.defaultFile(environment: ["XDG_STATE_HOME": "/x/state", "HOME": "/home/u"]).path
                == "/x/state/hotword/history.sqlite")
        #expect(HistoryLocation.defaultFile(environment: ["HOME": "/home/u"]).path == "/home/u/.local/state/hotword/history.sqlite")
    }

    /// `hotword-history-writer`, built next to the test bundle.
    static var writerBinary: URL {
        let runner = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        var folder = runner.deletingLastPathComponent()
        while folder.pathComponents.count > 1,
              !FileManager.default.isExecutableFile(atPath: folder.appendingPathComponent("hotword-history-writer").path) {
            folder.deleteLastPathComponent()
        }
        return folder.appendingPathComponent("hotword-history-writer")
    }
}
