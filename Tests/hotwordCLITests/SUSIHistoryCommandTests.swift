import Foundation
import HotwordTestSupport
import Testing

/// `hotword history`, `feedback` and `settings` against the SUSI test server, with the history
/// database and the token in a folder of the test's own.
@Suite("hotword history, feedback and settings")
struct SUSIHistoryCommandTests {
    static let account = SUSITestServer.Account(login: "user@example.org", password: "pa55-w0rd-XYZ", token: "tok-9c1e")

    /// A configuration for `server` with the history in `folder`; `susi` lines in `[susi]`,
    /// `extra` lines in `[history]`.
    private func config(_ folder: URL, _ server: SUSITestServer, susi: String = "", extra: String = "") throws -> String {
        try susiConfig(in: folder, server: server, extra: """
            retries = 0
            \(susi)
            [history]
            file = "\(folder.appendingPathComponent("state/history.sqlite").path)"
            \(extra)
            """)
    }

    private func hotword(_ arguments: String..., input: String? = nil) async throws -> HotwordBinary.Result {
        try await HotwordBinary.run(arguments, input: input)
    }

    @Test func askRecordsEveryExchangeThatHistoryShowsSearchesAndClears() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try SUSITestServer()
        defer { server.shutdown() }
        let config = try config(folder, server)
        server.enqueue(.answer("It is sunny in Berlin."), .answerFrom("I am SUSI.", skill: SUSITestServer.skillPath()),
                       .htmlError(status: 500))
        #expect(try await hotword("ask", "weather in berlin", "--config", config).status == 0)
        #expect(try await hotword("ask", "who are you", "--config", config).status == 0)
        #expect(try await hotword("ask", "break please", "--config", config).status == 1)

        let all = try await hotword("history", "--config", config)
        #expect(all.status == 0, "\(all.stderr)")
        let blocks = all.stdout.components(separatedBy: "\n\n")
        #expect(blocks.count == 3)
        #expect(blocks[0].hasPrefix("#1 ") && blocks[0].contains(" — typed\nYou: weather in berlin\nSUSI: It is sunny in Berlin."))
        #expect(blocks[2].contains("You: break please\n(SUSI server error: "))

        let last = try await hotword("history", "--last", "1", "--search", "SUSI", "--config", config)
        #expect(last.stdout.contains("You: who are you\nSUSI: I am SUSI.") && !last.stdout.contains("berlin"))
        let since = try await hotword("history", "--since", "2999-01-01", "--config", config)
        #expect(since.status == 0 && since.stdout == "No exchanges match.\n")

        // The schema docs/usage.md documents: snake_case keys, all of them in every exchange, the
        // time in ISO 8601, the answer without "SUSI: ", the actions as JSON.
        let json = try await hotword("history", "--json", "--config", config)
        let exchanges = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(exchanges.count == 3)
        for exchange in exchanges {
            #expect(Set(exchange.keys) == ["id", "time", "source", "wake_word", "wake_score", "question", "answer", "actions",
                                           "skill", "origin", "error", "rating", "timings_ms"])
            #expect(Set((exchange["timings_ms"] as? [String: Any] ?? [:]).keys) == ["recording", "transcribing", "asking", "speaking"])
            #expect((exchange["time"] as? String).flatMap { try? Date.ISO8601FormatStyle().parse($0) } != nil, "\(exchange)")
        }
        #expect(exchanges[1]["skill"] as? String == SUSITestServer.skillPath())
        #expect(exchanges[1]["origin"] as? String == "susi" && exchanges[1]["source"] as? String == "text")
        #expect(exchanges[1]["answer"] as? String == "I am SUSI.")
        #expect((exchanges[1]["actions"] as? [[String: Any]])?.first?["expression"] as? String == "I am SUSI.")
        #expect((exchanges[1]["timings_ms"] as? [String: Any])?["asking"] is Int)
        #expect(exchanges[1]["wake_word"] is NSNull && exchanges[1]["rating"] is NSNull)
        #expect(exchanges[2]["origin"] as? String == "error")

        let bad = try await hotword("history", "--since", "yesterday", "--config", config)
        #expect(bad.status == 64 && bad.stderr.contains("--since must be a date (2026-11-25) or a time"))

        let clear = try await hotword("history", "clear", "--config", config)
        let file = folder.appendingPathComponent("state/history.sqlite").path
        #expect(clear.stdout == "Deleted 3 exchanges from \(file).\n")
        #expect(try await hotword("history", "--json", "--config", config).stdout == "[]\n")
        // After clearing, that there is nothing is said.
        #expect(try await hotword("history", "--config", config).stdout == "No exchanges recorded (\(file)).\n")
        #expect(try await hotword("history", "clear", "--config", config).stdout == "No exchanges recorded (\(file)).\n")
    }

    @Test func withTheHistoryOffNothingIsKept() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try SUSITestServer()
        defer { server.shutdown() }
        let config = try config(folder, server, extra: "enabled = false")
        #expect(try await hotword("ask", "hi", "--config", config).status == 0)
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("state").path))
        let history = try await hotword("history", "--config", config)
        #expect(history.status == 1 && history.stderr == "Error: the history is off ([history] enabled = false)\n")
    }

    @Test func feedbackRatesAnAnswerFromTheHistoryOrSaysItCannot() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try SUSITestServer()
        defer { server.shutdown() }
        let config = try config(folder, server)
        let none = try await hotword("feedback", "positive", "--config", config)
        #expect(none.status == 1 && none.stderr.hasPrefix("Error: there is no answer to rate in the history ("))

        server.enqueue(.answerFrom("I am SUSI.", skill: SUSITestServer.skillPath()), .answer("Hello."))
        _ = try await hotword("ask", "who are you", "--config", config)
        _ = try await hotword("ask", "hello", "--config", config)

        // The last answer came from a built-in skill: said, not failed, nothing sent.
        let builtIn = try await hotword("feedback", "negative", "--config", config)
        #expect(builtIn.status == 0)
        #expect(builtIn.stdout == "The answer to “hello” cannot be rated: it came from one of SUSI's built-in skills, which cannot be rated.\n")
        #expect(server.requests(to: "/cms/rateSkill.json").isEmpty)

        let rated = try await hotword("feedback", "positive", "--last", "2", "--config", config)
        #expect(rated.status == 0, "\(rated.stderr)")
        #expect(rated.stdout == "Rated the answer to “who are you” positive (skill general/Knowledge/en/aboutsusi): Skill ratings updated.\n")
        let log = try #require(server.requests(to: "/cms/feedbackLog.json").first)
        #expect(log.query("user_query") == "who are you" && log.query("susi_reply") == "I am SUSI." && log.query("rating") == "positive")
        let history = try await hotword("history", "--config", config)
        #expect(history.stdout.contains(" — typed — rated positive\nYou: who are you"))

        // The numbers `hotword history` shows are taken too.
        let numbered = try await hotword("feedback", "negative", "#1", "--config", config)
        #expect(numbered.stdout == "Rated the answer to “who are you” negative (skill general/Knowledge/en/aboutsusi): Skill ratings updated.\n",
                "\(numbered.stderr)")
        #expect(server.requests(to: "/cms/rateSkill.json").last?.query("rating") == "negative")
        let unknown = try await hotword("feedback", "positive", "9", "--config", config)
        #expect(unknown.status == 1 && unknown.stderr.hasPrefix("Error: there is no exchange #9 to rate in the history ("))

        let wrong = try await hotword("feedback", "meh", "--config", config)
        #expect(wrong.status == 64)
    }

    @Test func settingsArePulledUnderTheConfigurationAndPushedWithWhatWasNotStored() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try SUSITestServer(account: Self.account)
        defer { server.shutdown() }
        let config = try config(folder, server)
        let notLoggedIn = try await hotword("settings", "pull", "--config", config)
        #expect(notLoggedIn.status == 1 && notLoggedIn.stderr == "Error: not logged in to SUSI (`hotword login` logs in)\n")
        #expect(try await hotword("login", "--login", Self.account.login, "--config", config, input: Self.account.password + "\n").status == 0)

        server.userSettings = ["prefLanguage": "de-DE", "speechRate": "1.2", "speechPitch": "loud", "speechOutput": "false",
                               "theme": "dark"]
        let pull = try await hotword("settings", "pull", "--config", config)
        #expect(pull.status == 0, "\(pull.stderr)")
        let pulledFile = folder.appendingPathComponent("state/susi-settings.toml").path
        #expect(pull.stdout == """
            Pulled into \(pulledFile) (keys set in hotword.toml win):
              susi.language = "de"
              tts.backend = "none"
              tts.espeak.rate = 210

            """)
        #expect(pull.stderr == "(ignored the account's speechPitch = loud: not a value hotword can use)\n")
        // Valid keys; alone, the account's German meets the default English-only speech to text.
        let check = try await hotword("config", "check", pulledFile)
        #expect(check.status == 78 && check.stderr.hasPrefix("Error: \(pulledFile):")
               && check.stderr.contains(": susi.language = \"de\" is invalid: expected \"en\": stt.backend = \"auto\" transcribes English only"),
                "\(check.stderr)")
        #expect(check.stderr.split(separator: "\n").count == 1, "\(check.stderr)")

        // The pulled language is used…
        _ = try await hotword("ask", "hallo", "--config", config)
        #expect(server.chatRequests.last?.query("language") == "de")
        // …unless the configuration sets one.
        let explicit = try self.config(folder, server, susi: "language = \"fr\"")
        _ = try await hotword("ask", "bonjour", "--config", explicit)
        #expect(server.chatRequests.last?.query("language") == "fr")

        // Push: ours (the pulled ones under the file's) go up; an older server that does not
        // know ttsLanguage keeps the rest, and that is named.
        server.unknownSettings = ["ttsLanguage"]
        let push = try await hotword("settings", "push", "--config", explicit)
        #expect(push.status == 1)
        #expect(push.stdout.contains("SUSI: You successfully changed settings of your account!\n"))
        #expect(push.stdout.contains("  prefLanguage = fr\n") && push.stdout.contains("  speechRate = 1.20\n"))
        #expect(push.stdout.contains("  speechOutput = false\n") && push.stdout.contains("  ttsLanguage = en-us  (not stored)\n"))
        #expect(push.stderr == "Error: the server did not store ttsLanguage\n")
        #expect(server.userSettings["prefLanguage"] == "fr" && server.userSettings["speechPitch"] == "1.00")
        for result in [pull, push] { #expect(!(result.stdout + result.stderr).contains(Self.account.token)) }
    }

    @Test func anExpiredTokenIsSaidToBeOneWhenPulling() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try SUSITestServer(account: Self.account)
        defer { server.shutdown() }
        let config = try config(folder, server)
        #expect(try await hotword("login", "--login", Self.account.login, "--config", config, input: Self.account.password + "\n").status == 0)
        let tokenFile = folder.appendingPathComponent("state/susi-token.json")
        let text = try String(contentsOf: tokenFile, encoding: .utf8).replacingOccurrences(of: Self.account.token, with: "tok-expired")
        try Data(text.utf8).write(to: tokenFile)
        let pull = try await hotword("settings", "pull", "--config", config)
        #expect(pull.status == 1)
        #expect(pull.stderr == "Error: the SUSI server no longer takes the token of user@example.org (expired?): `hotword login` logs in again\n")
    }

    @Test func historyServerShowsWhatTheServerRemembers() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try SUSITestServer()
        defer { server.shutdown() }
        let config = try config(folder, server)
        let empty = try await hotword("history", "server", "--config", config)
        #expect(empty.stdout == "The server remembers nothing of this conversation.\n")
        server.enqueue(.answer("One."), .table)
        _ = try await hotword("ask", "first", "--config", config)
        _ = try await hotword("ask", "stock quotes", "--config", config)
        let memory = try await hotword("history", "server", "--config", config)
        #expect(memory.status == 0)
        let blocks = memory.stdout.components(separatedBy: "\n\n")
        #expect(blocks.count == 2)
        #expect(blocks[0].hasSuffix("You: first\nSUSI: One."))
        #expect(blocks[1].contains("You: stock quotes\nSUSI: Here is a currency rate table:\nValuta   Quota"))
        let json = try await hotword("history", "server", "--json", "--config", config)
        #expect((try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [Any])?.count == 2)
        // `--server URL` of `hotword history` itself is a URL, as everywhere: that server's memory.
        let named = try await hotword("history", "--server", server.baseURL.absoluteString, "--config", config)
        #expect(named.status == 0 && named.stdout == memory.stdout, "\(named.stderr)")
        let notURL = try await hotword("history", "--server", "nowhere")
        #expect(notURL.status == 64 && notURL.stderr.hasPrefix("Error: --server must be an http or https URL, not 'nowhere'."))
    }
}
