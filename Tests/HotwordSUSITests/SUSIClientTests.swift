import Foundation
import HotwordSUSI
import HotwordTestSupport
import Logging
import Testing

/// A client for `server` with quick retries and short timeouts; `adjust` changes the rest.
func makeClient(_ server: SUSITestServer, logger: Logger = Logger(label: "hotword.test"),
                _ adjust: (inout SUSIConfiguration) -> Void = { _ in }) -> SUSIClient {
    var configuration = SUSIConfiguration(
        clientVersion: "9.9.9", server: server.baseURL,
        timeouts: HTTPTimeouts(connect: .seconds(2), total: .seconds(5)),
        retry: HTTPRetryPolicy(attempts: 3, baseDelay: .milliseconds(10)))
    adjust(&configuration)
    return SUSIClient(configuration: configuration, logger: logger)
}

/// Runs `body` and returns the SUSIError it throws (recording an issue if it returns normally).
func susiError(_ body: () async throws(SUSIError) -> SUSIReply,
               sourceLocation: SourceLocation = #_sourceLocation) async -> SUSIError? {
    do {
        let reply = try await body()
        Issue.record("expected an error, got \(reply.actions)", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

@Suite("SUSIClient against the SUSI test server")
struct SUSIClientTests {
    @Test func askSendsTheQueryParametersAndReturnsTheAnswer() async throws {
        let server = try SUSITestServer()
        defer { server.shutdown() }
        let reply = try await makeClient(server).ask("hi susi")
        #expect(reply.actions == [.answer(SUSIAnswer(expression: "Hello from the test server.", language: "en"))])
        #expect(reply.query == "hi susi")
        #expect(reply.identity == SUSIIdentity(type: "host", name: "127.0.0.1_4f3c2a1b", anonymous: true))
        #expect(reply.clientID != nil && reply.queryDate != nil && reply.answerDate != nil)
        #expect(reply.answerTime == .milliseconds(4))
        #expect(reply.json.contains("\"answers\""))

        let request = try #require(server.chatRequests.first)
        #expect(request.method == "GET")
        #expect(request.query.map(\.name) == ["q", "timezoneOffset", "language", "device_type"])
        #expect(request.query("q") == "hi susi")
        #expect(request.query("timezoneOffset") == String(SUSIConfiguration.timezoneOffset()))
        #expect(request.query("language") == "en")
        #expect(request.query("device_type") == "Smart Speaker")
    }

    @Test func configuredValuesAreSent() async throws {
        let server = try SUSITestServer()
        defer { server.shutdown() }
        _ = try await makeClient(server) {
            $0.language = "de"
            $0.timezoneOffset = -120
            $0.deviceType = "Kitchen Pi"
        }.ask("wie spät ist es")
        let request = try #require(server.chatRequests.first)
        #expect(request.query("language") == "de")
        #expect(request.query("timezoneOffset") == "-120")
        #expect(request.query("device_type") == "Kitchen Pi")
        #expect(request.header("Accept-Language") == "de")
    }

    @Test func locationAndCountryAreSentOnlyAsWholePairs() async throws {
        let server = try SUSITestServer()
        defer { server.shutdown() }
        _ = try await makeClient(server) {
            $0.latitude = 52.52
            $0.countryName = "Germany"
        }.ask("weather")
        _ = try await makeClient(server) {
            $0.latitude = 52.52
            $0.longitude = 13.405
            $0.countryName = "Germany"
            $0.countryCode = "DE"
        }.ask("weather")
        let requests = server.chatRequests
        try #require(requests.count == 2)
        for name in ["latitude", "longitude", "country_name", "country_code"] {
            #expect(requests[0].query(name) == nil, "\(name) sent without its partner")
        }
        #expect(requests[1].query("latitude") == "52.52")
        #expect(requests[1].query("longitude") == "13.405")
        #expect(requests[1].query("country_name") == "Germany")
        #expect(requests[1].query("country_code") == "DE")
    }

    @Test func identifyingHeadersStayTheSameAcrossRequests() async throws {
        let server = try SUSITestServer()
        defer { server.shutdown() }
        let client = makeClient(server)
        _ = try await client.ask("one")
        _ = try await client.ask("two")
        let requests = server.chatRequests
        try #require(requests.count == 2)
        for name in ["User-Agent", "Accept-Encoding", "Accept-Language"] {
            #expect(requests[0].header(name) != nil)
            #expect(requests[0].header(name) == requests[1].header(name), "\(name) changed")
        }
        #expect(requests[0].header("User-Agent") == "hotword/9.9.9")
        #expect(requests[0].header("Accept-Language") == "en")
    }

    @Test func timezoneOffsetUsesTheJavaScriptConvention() throws {
        #expect(SUSIConfiguration.timezoneOffset(of: try #require(TimeZone(secondsFromGMT: 7200))) == -120)
        #expect(SUSIConfiguration.timezoneOffset(of: try #require(TimeZone(secondsFromGMT: -19800))) == 330)
        let newYork = try #require(TimeZone(identifier: "America/New_York"))
        #expect(SUSIConfiguration.timezoneOffset(of: newYork, at: Date(timeIntervalSince1970: 1_700_000_000)) == 300)
        #expect(SUSIConfiguration.timezoneOffset(of: newYork, at: Date(timeIntervalSince1970: 1_690_000_000)) == 240)
    }

    @Test func busyServerIsRetriedThenReportedAsBusy() async throws {
        let server = try SUSITestServer()
        defer { server.shutdown() }
        server.enqueue(.rateLimited, .rateLimited, .rateLimited)
        let error = await susiError { () async throws(SUSIError) in try await makeClient(server).ask("hi") }
        guard case .http(.status(_, 503, let body), attempts: 3) = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(body == "Error 503 your request frequency is too high")
        #expect(server.chatRequests.count == 3)
        #expect(error?.description.hasPrefix("SUSI server busy:") == true)
        #expect(error?.spokenMessage == "SUSI is busy right now. Please try again in a moment.")
    }

    @Test func serverErrorsAreRetriedUntilAnAnswerComes() async throws {
        let server = try SUSITestServer()
        defer { server.shutdown() }
        server.enqueue(.htmlError(status: 500), .rateLimited)
        let reply = try await makeClient(server).ask("hi")
        #expect(reply.hasAnswerAction)
        #expect(server.chatRequests.count == 3)
    }

    @Test func clientErrorsAreNotRetried() async throws {
        let server = try SUSITestServer()
        defer { server.shutdown() }
        server.enqueue(.htmlError(status: 400))
        let error = await susiError { () async throws(SUSIError) in try await makeClient(server).ask("hi") }
        guard case .http(.status(_, 400, _), attempts: 1) = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(server.chatRequests.count == 1)
        #expect(error?.spokenMessage == "SUSI could not handle that request.")
    }

    @Test func htmlErrorPageBecomesAOneLineServerError() async throws {
        let server = try SUSITestServer()
        defer { server.shutdown() }
        server.enqueue(.htmlError(status: 500))
        let error = await susiError { () async throws(SUSIError) in
            try await makeClient(server) { $0.retry = .never }.ask("hi")
        }
        let description = try #require(error?.description)
        #expect(description == "SUSI server error: \(server.baseURL.absoluteString)/susi/chat.json?q=hi&timezoneOffset="
                + "\(SUSIConfiguration.timezoneOffset())&language=en&device_type=Smart%20Speaker answered HTTP 500: "
                + "Error 500 java.lang.IndexOutOfBoundsException: Index: 0, Size: 0")
        #expect(!description.contains("\n"))
        #expect(error?.spokenMessage == "SUSI had a problem with that question.")
    }

    @Test func slowServerTimesOutWithinTheTimeoutAndIsNotRetried() async throws {
        let server = try SUSITestServer()
        defer { server.shutdown() }
        server.enqueue(.slow(.seconds(10), .answer("too late")))
        let started = ContinuousClock.now
        let error = await susiError { () async throws(SUSIError) in
            try await makeClient(server) { $0.timeouts = HTTPTimeouts(connect: .seconds(1), total: .milliseconds(500)) }
                .ask("hi")
        }
        let elapsed = ContinuousClock.now - started
        guard case .http(.timedOut(_, 0.5), attempts: 1) = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(elapsed < .milliseconds(2500), "took \(elapsed)")
        #expect(server.chatRequests.count == 1)
        #expect(error?.spokenMessage == "SUSI is taking too long to answer.")
    }

    @Test func unreachableServerIsRetriedThenReported() async throws {
        var configuration = SUSIConfiguration(clientVersion: "9.9.9", server: URL(string: "http://127.0.0.1:1")!)
        configuration.retry = HTTPRetryPolicy(attempts: 3, baseDelay: .milliseconds(10))
        let capture = LogCapture()
        let client = SUSIClient(configuration: configuration, logger: capture.logger())
        let error = await susiError { () async throws(SUSIError) in try await client.ask("hi") }
        guard case .http(.couldNotConnect, attempts: 3) = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(capture.lines.filter { $0.hasPrefix("warning") }.count == 2)
        #expect(error?.description.hasPrefix("SUSI server unreachable: couldn't connect to http://127.0.0.1:1/susi/chat.json?q=hi") == true)
        #expect(error?.description.hasSuffix("(3 attempts)") == true)
        #expect(error?.spokenMessage == "I can't reach SUSI right now.")
    }

    @Test func garbageIsAMalformedReply() async throws {
        let server = try SUSITestServer()
        defer { server.shutdown() }
        server.enqueue(.garbage)
        let error = await susiError { () async throws(SUSIError) in try await makeClient(server).ask("hi") }
        guard case .malformedReply(_, let reason) = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(reason.hasPrefix("invalid JSON at byte"))
        #expect(error?.spokenMessage == "SUSI sent an answer I couldn't understand.")
    }

    @Test func htmlPageWithSuccessStatusIsNotJSON() async throws {
        let server = try SUSITestServer()
        defer { server.shutdown() }
        server.enqueue(.raw(status: 200, contentType: "text/html",
                            body: "<!DOCTYPE html><html><head><title>Hotel WiFi login</title></head></html>"))
        let error = await susiError { () async throws(SUSIError) in try await makeClient(server).ask("hi") }
        guard case .notJSON(_, "Hotel WiFi login") = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
    }

    @Test func emptyAnswersIsNoAnswer() async throws {
        let server = try SUSITestServer()
        defer { server.shutdown() }
        server.enqueue(.emptyAnswers)
        let error = await susiError { () async throws(SUSIError) in try await makeClient(server).ask("blorp") }
        #expect(error == .noAnswer(query: "blorp"))
        #expect(error?.spokenMessage == "Sorry, I have no answer to that.")
    }

    @Test func answerWithoutAnAnswerActionIsStillAReply() async throws {
        let server = try SUSITestServer()
        defer { server.shutdown() }
        server.enqueue(.noAnswerAction)
        let reply = try await makeClient(server).ask("who won the match")
        #expect(!reply.hasAnswerAction)
        #expect(reply.actions == [.webSearch(query: "who won the match", count: 3)])
    }

    @Test func cancellingAQuestionThrowsCancelled() async throws {
        let server = try SUSITestServer()
        defer { server.shutdown() }
        server.enqueue(.slow(.seconds(10), .answer("too late")))
        let client = makeClient(server)
        let task = Task { () async throws(SUSIError) in try await client.ask("hi") }
        try await Task.sleep(for: .milliseconds(200))
        task.cancel()
        await #expect(throws: SUSIError.cancelled) { try await task.value }
    }
}

@Suite("SUSIClient login")
struct SUSIClientLoginTests {
    static let account = SUSITestServer.Account(login: "user@example.org", password: "pa55-w0rd-xyz",
                                                token: "tok-5f1d8e2c9a7b")

    private func account(in folder: URL) -> SUSIAccount {
        SUSIAccount(login: Self.account.login, password: Self.account.password,
                    tokenFile: folder.appendingPathComponent("cache/hotword/susi-token.json"))
    }

    @Test func loginCachesTheTokenInAPrivateFileAndSendsIt() async throws {
        let server = try SUSITestServer(account: Self.account)
        defer { server.shutdown() }
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let account = account(in: folder)
        let reply = try await makeClient(server) { $0.account = account }.ask("hi")

        #expect(reply.identity?.anonymous == false)
        let login = try #require(server.loginRequests.first)
        #expect(login.query("login") == Self.account.login)
        #expect(login.query("password") == Self.account.password)
        #expect(login.query("type") == "access-token")
        #expect(server.chatRequests.first?.query("access_token") == Self.account.token)

        let attributes = try FileManager.default.attributesOfItem(atPath: account.tokenFile.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let folderAttributes = try FileManager.default.attributesOfItem(atPath: account.tokenFile.deletingLastPathComponent().path)
        #expect((folderAttributes[.posixPermissions] as? NSNumber)?.intValue == 0o700)
        #expect(try String(contentsOf: account.tokenFile, encoding: .utf8).contains(Self.account.token))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: account.tokenFile.deletingLastPathComponent().path)
        #expect(leftovers == ["susi-token.json"])
    }

    @Test func cachedTokenIsReusedAcrossClientsUntilItExpires() async throws {
        let server = try SUSITestServer(account: Self.account)
        defer { server.shutdown() }
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let account = account(in: folder)
        let first = makeClient(server) { $0.account = account }
        _ = try await first.ask("one")
        _ = try await first.ask("two")
        _ = try await makeClient(server) { $0.account = account }.ask("three")
        #expect(server.loginRequests.count == 1)
        #expect(server.chatRequests.map { $0.query("access_token") } == Array(repeating: Self.account.token, count: 3))

        // A token about to expire is not used: the next client logs in again.
        var shortLived = Self.account
        shortLived.validSeconds = 30
        let other = try SUSITestServer(account: shortLived)
        defer { other.shutdown() }
        let otherAccount = self.account(in: folder.appendingPathComponent("other"))
        _ = try await makeClient(other) { $0.account = otherAccount }.ask("one")
        _ = try await makeClient(other) { $0.account = otherAccount }.ask("two")
        #expect(other.loginRequests.count == 2)
    }

    @Test func concurrentQuestionsLogInOnce() async throws {
        let server = try SUSITestServer(account: Self.account)
        defer { server.shutdown() }
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let account = account(in: folder)
        let client = makeClient(server) { $0.account = account }
        async let one = client.ask("one")
        async let two = client.ask("two")
        async let three = client.ask("three")
        _ = try await (one, two, three)
        #expect(server.loginRequests.count == 1)
        #expect(server.chatRequests.count == 3)
    }

    @Test func passwordAndTokenNeverAppearInLogsOrDescriptions() async throws {
        let server = try SUSITestServer(account: Self.account)
        defer { server.shutdown() }
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let capture = LogCapture()
        let client = makeClient(server, logger: capture.logger()) { $0.account = account(in: folder) }
        _ = try await client.ask("hi")
        server.enqueue(.htmlError(status: 500), .htmlError(status: 500), .htmlError(status: 500))
        let error = await susiError { () async throws(SUSIError) in try await client.ask("fail") }

        let lines = capture.lines
        #expect(lines.contains { $0.contains("access_token=<redacted>") })
        #expect(lines.contains { $0.contains("password=<redacted>") })
        var dumped = ""
        dump(client.configuration, to: &dumped)
        #expect(dumped.contains("<redacted>"))
        for text in lines + [String(describing: error), String(describing: client.configuration), dumped] {
            #expect(!text.contains(Self.account.token))
            #expect(!text.contains(Self.account.password))
        }
    }

    @Test func wrongPasswordIsLoginRejectedWithoutRetryOrQuestion() async throws {
        let server = try SUSITestServer(account: Self.account)
        defer { server.shutdown() }
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        var account = account(in: folder)
        account.password = "wrong"
        let error = await susiError { () async throws(SUSIError) in
            try await makeClient(server) { $0.account = account }.ask("hi")
        }
        #expect(error == .loginRejected(login: Self.account.login, reason: "HTTP 422: Error 422 Invalid credentials"))
        #expect(server.loginRequests.count == 1)
        #expect(server.chatRequests.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: account.tokenFile.path))
    }
}
