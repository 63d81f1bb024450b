import Foundation
import HotwordSUSI
import HotwordTestSupport
import Testing

@Suite("SUSI ratings, user settings and memory against the SUSI test server")
struct SUSIFeedbackTests {
    static let account = SUSITestServer.Account(login: "user@example.org", password: "pa55-w0rd-XYZ", token: "token-of-the-user")

    @Test(arguments: [
        ("/susi_skill_data/models/general/Knowledge/en/aboutsusi.txt", SUSISkillReference(model: "general", group: "Knowledge", language: "en", skill: "aboutsusi")),
        ("/susi_skill_data/models/general/Food and Drink/de/rezepte.v2.txt", SUSISkillReference(model: "general", group: "Food and Drink", language: "de", skill: "rezepte")),
    ])
    func skillStorePathsSplitAsTheReferenceClientsSplitThem(path: String, expected: SUSISkillReference) {
        #expect(SUSISkillReference(path: path) == expected)
    }

    @Test(arguments: ["/susi_server/conf/os_skills/system/en/en_0700_ai_play.json", "/susi_server/conf/susi/en_0090_fail.json",
                      "/instant/en/joke", "", "/susi_skill_data/models/general/Knowledge/en/", "susi_skill_data/models/general/Knowledge/en/x.txt",
                      "/susi_skill_data/models/general/Knowledge/en/x.txt/extra"])
    func otherPathsAreNotRatable(path: String) {
        #expect(SUSISkillReference(path: path) == nil)
    }

    @Test func aRatingIsCountedThenLoggedWithTheQueryAndTheReply() async throws {
        let server = try SUSITestServer()
        defer { server.shutdown() }
        let client = makeClient(server) { $0.countryName = "Germany"; $0.countryCode = "DE" }
        let outcome = try await client.rate(skillPath: SUSITestServer.skillPath(), .negative, query: "who are you",
                                            reply: "I am a teapot.")
        let skill = SUSISkillReference(model: "general", group: "Knowledge", language: "en", skill: "aboutsusi")
        #expect(outcome == .rated(skill, message: "Skill ratings updated", logError: nil))
        #expect(server.requests.map(\.path) == ["/cms/rateSkill.json", "/cms/feedbackLog.json"])
        let rate = try #require(server.requests(to: "/cms/rateSkill.json").first)
        #expect(["model", "group", "language", "skill", "rating"].map { rate.query($0) } == ["general", "Knowledge", "en", "aboutsusi", "negative"])
        let log = try #require(server.requests(to: "/cms/feedbackLog.json").first)
        #expect(log.query("user_query") == "who are you" && log.query("susi_reply") == "I am a teapot.")
        #expect(log.query("rating") == "negative" && log.query("device_type") == "Smart Speaker")
        #expect(log.query("country_name") == "Germany" && log.query("country_code") == "DE")
    }

    @Test func aBuiltInSkillIsNotRatableAndNothingIsSent() async throws {
        let server = try SUSITestServer()
        defer { server.shutdown() }
        let outcome = try await makeClient(server).rate(skillPath: "/susi_server/conf/susi/en_0090_fail.json", .positive,
                                                        query: "q", reply: "r")
        guard case .notRatable(let path, let reason) = outcome else { Issue.record("\(outcome)"); return }
        #expect(path == "/susi_server/conf/susi/en_0090_fail.json" && reason.contains("built-in"))
        #expect(server.requests.isEmpty)
        #expect(try await makeClient(server).rate(skillPath: nil, .positive, query: "q", reply: "r")
                == .notRatable(path: nil, reason: "SUSI did not say which skill gave that answer"))
    }

    @Test func aSkillTheServerDoesNotKnowIs404AndSaidSo() async throws {
        let server = try SUSITestServer()
        defer { server.shutdown() }
        let path = SUSITestServer.skillPath(tag: "vanished")
        let outcome = try await makeClient(server).rate(skillPath: path, .positive, query: "q", reply: "r")
        #expect(outcome == .notRatable(path: path, reason: "the server does not know the skill general/Knowledge/en/vanished"))
        #expect(server.requests.count == 1, "no retry after a 4xx, no log of a vote not counted")
    }

    @Test func settingsNeedALoginAndAnExpiredTokenIsSaidToBeOne() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try SUSITestServer(account: Self.account)
        defer { server.shutdown() }
        let tokenFile = folder.appendingPathComponent("susi-token.json")
        let client = makeClient(server)
        await #expect(throws: SUSIError.notLoggedIn) { try await client.userSettings(tokenFile: tokenFile) }
        _ = try await client.logIn(as: Self.account.login, password: Self.account.password, tokenFile: tokenFile)
        server.userSettings = ["speechRate": "1.5", "theme": "dark"]
        #expect(try await client.userSettings(tokenFile: tokenFile) == ["speechRate": "1.5", "theme": "dark"])
        #expect(try await client.storeUserSettings(["speechPitch": "0.8", "hotwordRecognition": "true"], tokenFile: tokenFile)
                == "You successfully changed settings of your account!")
        #expect(server.userSettings == ["speechRate": "1.5", "theme": "dark", "speechPitch": "0.8"])

        // The server forgot the token (it expired): the 401 of a USER servlet says so.
        let stale = SUSITestServer.Account(login: Self.account.login, password: Self.account.password, token: "a-new-token")
        let restarted = try SUSITestServer(account: stale)
        defer { restarted.shutdown() }
        let other = makeClient(restarted)
        var copied = try String(contentsOf: tokenFile, encoding: .utf8)
        copied = copied.replacingOccurrences(of: server.baseURL.absoluteString.replacingOccurrences(of: "/", with: "\\/"),
                                             with: restarted.baseURL.absoluteString.replacingOccurrences(of: "/", with: "\\/"))
        try Data(copied.utf8).write(to: tokenFile)
        await #expect(throws: SUSIError.tokenRejected(login: Self.account.login)) { try await other.userSettings(tokenFile: tokenFile) }
        #expect(SUSIError.tokenRejected(login: Self.account.login).description.contains("hotword login"))
    }

    @Test func memoryGivesTheServersLastFiveExchangesOldestFirst() async throws {
        let server = try SUSITestServer()
        defer { server.shutdown() }
        let client = makeClient(server)
        for number in 1...7 {
            server.enqueue(.answer("answer \(number)"))
            _ = try await client.ask("question \(number)")
        }
        let memory = try await client.memory(tokenFile: nil)
        #expect(memory.map(\.query) == (3...7).map { "question \($0)" })
        #expect(memory.last?.actions == [.answer(SUSIAnswer(expression: "answer 7", language: "en"))])
        #expect(server.requests(to: "/susi/memory.json").first?.query("access_token") == nil)
    }
}
