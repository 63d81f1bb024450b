import Foundation
import HotwordTestSupport
import Testing

/// `hotword run` with its history: the voice phrases, a reader while it writes, planned answers
/// across a restart, a full disk. Real parts as in the fault matrix; the transcripts come from a
/// program (the command backend) so each phrase is exactly what the test means.
@Suite("hotword run: phrases, history, planned answers")
struct RunHistoryTests {
    /// A running assistant whose questions are transcribed as `transcripts`, one per question in order.
    struct Rig {
        let folder: URL
        let microphone: PacedMicrophone
        let config: URL
        let question: [Float]
        var history: URL { folder.appendingPathComponent("state/history.sqlite") }

        init(server: SUSITestServer, transcripts: [String] = [], historyFile: URL? = nil, microphoneFolder: String = "mic",
             folder existing: URL? = nil, susi: String = "") async throws {
            _ = ALSATestDevices.configPath
            folder = try existing ?? TestPaths.temporaryDirectory()
            let micFolder = folder.appendingPathComponent(microphoneFolder)
            try FileManager.default.createDirectory(at: micFolder, withIntermediateDirectories: true)
            microphone = try PacedMicrophone(folder: micFolder)
            try Data((transcripts.joined(separator: "\n") + "\n").utf8).write(to: folder.appendingPathComponent("transcripts"))
            let stt = try FaultRig.script("stt", in: folder, """
                n=$(cat "\(folder.path)/count" 2>/dev/null || echo 0); n=$((n + 1)); echo $n > "\(folder.path)/count"
                sed -n "${n}p" "\(folder.path)/transcripts"
                """)
            let file = historyFile ?? folder.appendingPathComponent("state/history.sqlite")
            config = try RunCommandTests.configuration(
                in: folder, microphone: microphone.deviceName,
                loudspeaker: ALSATestDevices.playback(into: folder.appendingPathComponent("played.raw")), server: server.baseURL,
                extra: """
                    token_file = '\(folder.appendingPathComponent("state/susi-token.json").path)'
                    \(susi)
                    [stt]
                    backend = "command"
                    [stt.command]
                    arguments = ['\(stt.path)', '{wav}']
                    [history]
                    file = '\(file.path)'
                    """)
            question = try await RunCommandTests.speech(FaultRig.question, in: folder)
        }

        func start() throws -> RunningHotword {
            try RunningHotword(["run", "--config", config.path, "--json"])
        }

        /// Says the question (after the detector's warm-up when `first`).
        func ask(first: Bool = false) {
            microphone.say(RunCommandTests.silence(first ? 2.5 : 0.5) + question)
        }
    }

    @Test func phrasesAreAnsweredHereRateTheLastAnswerAndHistoryReadsWhileRunWrites() async throws {
        let server = try SUSITestServer(fallback: .answerFrom("I am SUSI.", skill: SUSITestServer.skillPath()))
        defer { server.shutdown() }
        let rig = try await Rig(server: server, transcripts: ["who are you", "Thank you!", "what can you do"])
        defer { try? FileManager.default.removeItem(at: rig.folder) }
        defer { rig.microphone.close() }

        let daemon = try rig.start()
        // `hotword history` over and over while `run` records.
        let reading = Task {
            var reads: [(status: Int32, count: Int)] = []
            while !Task.isCancelled {
                let result = try await HotwordBinary.run(["history", "--json", "--config", rig.config.path])
                if Task.isCancelled { break }  // cancelled while it ran: its end was not waited for
                let exchanges = (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [Any])?.count ?? -1
                reads.append((result.status, exchanges))
            }
            return reads
        }
        rig.ask(first: true)
        let asked = await daemon.waitUntilListening(again: 1)
        rig.ask()
        let rated = await daemon.waitUntilListening(again: 2)
        rig.ask()
        let helped = await daemon.waitUntilListening(again: 3)
        reading.cancel()
        let reads = try await reading.value
        let (status, stderr) = await daemon.stop()

        RunCommandTests.requireModel(stderr)
        #expect(asked && rated && helped, "stdout: \(daemon.lines)\nstderr: \(stderr)")
        #expect(status == 0)
        #expect(daemon.answers.count == 3)
        #expect(daemon.answers.prefix(2) == ["I am SUSI.", "Thank you! I told SUSI."])
        let help = try #require(daemon.answers.last)
        #expect(help.hasPrefix("You can ask me, for example: “"), "\(help)")
        #expect(["Who are you?", "What is SUSI?"].filter { help.contains($0) }.count == 1, "\(help)")
        #expect(help.contains("What is a lighthouse?") && help.contains("How do I make a mojito?"), "\(help)")
        // Only the question went to SUSI's chat; the thanks became a rating, the help used the skill list.
        #expect(server.chatRequests.map { $0.query("q") } == ["who are you"])
        #expect(server.requests(to: "/cms/rateSkill.json").map { $0.query("rating") } == ["positive"])
        #expect(server.requests(to: "/cms/feedbackLog.json").first?.query("susi_reply") == "I am SUSI.")
        #expect(server.requests(to: "/cms/getSkillList.json").count == 1)

        // The reader never failed and never saw an exchange disappear.
        #expect(!reads.isEmpty && reads.allSatisfy { $0.status == 0 && $0.count >= 0 }, "\(reads)")
        #expect(reads.map(\.count) == reads.map(\.count).sorted(), "\(reads.map(\.count))")
        let result = try await HotwordBinary.run(["history", "--json", "--config", rig.config.path])
        let exchanges = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        // As asked: lower case, sentence punctuation gone (QuestionText).
        #expect(exchanges.map { $0["question"] as? String } == ["who are you", "thank you", "what can you do"], "stderr: \(stderr)")
        #expect(exchanges.map { $0["origin"] as? String } == ["susi", "local", "local"])
        #expect(exchanges.first?["rating"] as? String == "positive")
        #expect(exchanges.first?["skill"] as? String == SUSITestServer.skillPath())
        #expect(exchanges.allSatisfy { $0["wake_word"] as? String == "hey susi" && ($0["wake_score"] as? Double ?? 0) > 0.5 })
        let timings = try #require(exchanges.first?["timings_ms"] as? [String: Any])
        #expect(["recording", "transcribing", "asking", "speaking"].allSatisfy { timings[$0] is Int }, "\(timings)")
        #expect((1_000...6_000).contains(timings["recording"] as? Int ?? 0), "\(timings)")
    }

    /// A reminder due in 1.5 s falls due while hotword is stopped and is said late at the next
    /// start, saying so; one due in 9 s, and the timer, are said at their time by the new process.
    /// The timer is set from here, before the first process starts: 20 s leaves room for two
    /// start-ups on a loaded machine (at 10 s it once fell due while the second was starting).
    @Test func plannedAnswersSurviveARestart() async throws {
        let timer = Int(Date().timeIntervalSince1970) + 20
        let server = try SUSITestServer(fallback: .actions([
            #"{"type": "answer", "expression": "OK, I will remind you."}"#,
            #"{"type": "answer", "expression": "Tea is ready.", "plan_delay": 1500}"#,
            #"{"type": "answer", "expression": "Stretch your legs.", "plan_delay": 9000}"#,
            #"{"type": "timer_set", "time": \#(timer)}"#,
        ]))
        defer { server.shutdown() }
        let rig = try await Rig(server: server, transcripts: ["remind me"])
        defer { try? FileManager.default.removeItem(at: rig.folder) }
        defer { rig.microphone.close() }

        let first = try rig.start()
        rig.ask(first: true)
        let planned = await first.waitForErrorLine { _ in
            first.logged("answer planned in").count == 2 && !first.logged("timer set for").isEmpty
        }
        let asked = ContinuousClock.now
        let (firstStatus, firstLog) = await first.stop(signal: SIGTERM)
        #expect(planned, "stdout: \(first.lines)\nstderr: \(firstLog)")
        #expect(firstStatus == 0)
        #expect(first.answers == ["OK, I will remind you."])
        // Past the tea's time, well before the legs'.
        try await Task.sleep(until: asked + .seconds(2.5))

        let second = try RunningHotword(["run", "--config", rig.config.path, "--json"])
        let late = await second.waitForLine(timeout: .seconds(20)) { $0.contains("Tea is ready.") }
        let onTime = await second.waitForLine(timeout: .seconds(20)) { $0.contains("Stretch your legs.") }
        let timeUp = await second.waitForLine(timeout: .seconds(20)) { $0.contains("Time is up.") }
        let said = ContinuousClock.now
        let (secondStatus, secondLog) = await second.stop()

        RunCommandTests.requireModel(firstLog + secondLog)
        #expect(late && onTime && timeUp, "stdout: \(second.lines)\nstderr: \(secondLog)")
        #expect(secondStatus == 0)
        let answers = second.answers
        #expect(answers.count == 3, "\(answers)")
        #expect(answers.first?.wholeMatch(of: /This was due at .+: Tea is ready\./) != nil, "\(answers)")
        #expect(Set(answers.dropFirst()) == ["Stretch your legs.", "Time is up."])
        let early = said - asked
        #expect(early > .seconds(8), "said \(early) after it was planned, due after 9 s")
        #expect(second.events("wake").isEmpty)

        // Said once: a third start has nothing left to say.
        let third = try RunningHotword(["run", "--config", rig.config.path, "--json"])
        _ = await third.waitForErrorLine(timeout: .seconds(20)) { $0.contains("state: listening") }
        try await Task.sleep(for: .seconds(1))
        _ = await third.stop()
        #expect(third.answers.isEmpty, "\(third.answers)")
    }

    /// The disk holding the history fills up: the answer still comes, the failure is reported
    /// once, listening goes on, and with room again exchanges are recorded again.
    @Test func aFullDiskIsReportedOnceAndListeningGoesOn() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let disk: TemporaryDisk
        do { disk = try TemporaryDisk(at: folder.appendingPathComponent("disk"), bytes: 256 << 10) } catch { try Test.cancel("\(error)") }
        defer { disk.unmount() }
        let server = try SUSITestServer(fallback: .answer(FaultRig.answer))
        defer { server.shutdown() }
        let rig = try await Rig(server: server, transcripts: ["first", "second", "third"],
                                historyFile: disk.url.appendingPathComponent("history.sqlite"), folder: folder)
        defer { rig.microphone.close() }

        let daemon = try rig.start()
        let listening = await daemon.waitForErrorLine(timeout: .seconds(30)) { $0.contains("state: listening") }
        let filler = try disk.fill()
        rig.ask(first: true)
        let first = await daemon.waitUntilListening(again: 1)
        rig.ask()
        let second = await daemon.waitUntilListening(again: 2)
        try FileManager.default.removeItem(at: filler)
        rig.ask()
        let third = await daemon.waitUntilListening(again: 3)
        let recovered = await daemon.waitForErrorLine(timeout: .seconds(10)) { $0.contains("works again") }
        let (status, stderr) = await daemon.stop()

        RunCommandTests.requireModel(stderr)
        #expect(listening && first && second && third && recovered, "stdout: \(daemon.lines)\nstderr: \(stderr)")
        #expect(status == 0)
        #expect(daemon.answers == Array(repeating: "\(FaultRig.answer)", count: 3))
        #expect(daemon.errors == ["history: the disk holding the history database \(disk.url.path)/history.sqlite is full: the exchange was not recorded"],
                "\(daemon.errors)")
        let result = try await HotwordBinary.run(["history", "--json", "--config", rig.config.path])
        let exchanges = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        #expect(exchanges.map { $0["question"] as? String } == ["third"])
    }

    /// `[susi] sync_settings`: the account's settings are pulled at start and on reload, and the
    /// configuration file's own keys stay over them.
    @Test func syncSettingsPullsAtStartAndOnReload() async throws {
        let account = SUSITestServer.Account(login: "user@example.org", password: "pa55-w0rd-XYZ", token: "tok-sync")
        let server = try SUSITestServer(account: account, fallback: .answer(FaultRig.answer))
        defer { server.shutdown() }
        server.userSettings = ["prefLanguage": "de", "speechRate": "1.2"]
        let rig = try await Rig(server: server, transcripts: ["wie spät ist es", "quelle heure est-il"], susi: "sync_settings = true")
        defer { try? FileManager.default.removeItem(at: rig.folder) }
        defer { rig.microphone.close() }
        let login = try await HotwordBinary.run(["login", "--login", account.login, "--config", rig.config.path], input: account.password + "\n")
        try #require(login.status == 0, "\(login.stderr)")

        let daemon = try rig.start()
        let listening = await daemon.waitForErrorLine(timeout: .seconds(30)) { $0.contains("state: listening") }
        rig.ask(first: true)
        let first = await daemon.waitUntilListening(again: 1)
        server.userSettings["prefLanguage"] = "fr"
        daemon.send(SIGHUP)
        let reloaded = await daemon.waitForErrorLine { $0.contains("configuration reloaded") }
        rig.ask()
        let second = await daemon.waitUntilListening(again: 2)
        let (status, stderr) = await daemon.stop()

        RunCommandTests.requireModel(stderr)
        #expect(listening && first && reloaded && second, "stdout: \(daemon.lines)\nstderr: \(stderr)")
        #expect(status == 0)
        #expect(server.requests(to: "/aaa/listUserSettings.json").count == 2)
        #expect(server.chatRequests.map { $0.query("language") } == ["de", "fr"])
        #expect(daemon.logged("sync_settings: pulled 2 settings of user@example.org").count == 2)
        #expect(!stderr.contains(account.token) && !stderr.contains(account.password))
    }
}
