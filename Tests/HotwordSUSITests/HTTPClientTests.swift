import Foundation
import HotwordSUSI
import HotwordTestSupport
import Testing

@Suite("HTTPClient against a local HTTP server")
struct HTTPClientTests {
    let client = HTTPClient(timeouts: HTTPTimeouts(connect: .seconds(2), total: .seconds(5)))

    private func text(_ body: String, status: Int = 200, headers: [TestHTTPField] = []) -> TestHTTPResponse {
        TestHTTPResponse(status: status, contentType: "text/plain", body: body, headers: headers)
    }

    @Test func getSendsEncodedQueryAndHeadersAndReturnsTheResponse() async throws {
        let server = try TestHTTPServer { _ in self.text("hello", headers: [TestHTTPField("X-Reply", "yes")]) }
        defer { server.shutdown() }
        let tricky = "what is 2+2 & 3=3? 100% Zoë 東京 🙂"
        let response = try await client.send(.get(server.baseURL.appendingPathComponent("path/x.json"),
                                                  query: [HTTPField("q", tricky), HTTPField("empty", "")],
                                                  headers: [HTTPField("X-Test", "one two")]))
        #expect(response.status == 200)
        #expect(response.text == "hello")
        #expect(response.header("x-reply") == "yes")
        #expect(response.header("content-type") == "text/plain")
        let request = try #require(server.requests.first)
        #expect(request.method == "GET")
        #expect(request.path == "/path/x.json")
        #expect(request.query == [TestHTTPField("q", tricky), TestHTTPField("empty", "")])
        #expect(request.header("X-Test") == "one two")
    }

    @Test func postFormSendsEncodedFields() async throws {
        let server = try TestHTTPServer { _ in self.text("ok") }
        defer { server.shutdown() }
        let fields = [HTTPField("q", "a&b=c d+e"), HTTPField("language", "de")]
        _ = try await client.send(.postForm(server.baseURL.appendingPathComponent("form"), fields: fields))
        let request = try #require(server.requests.first)
        #expect(request.method == "POST")
        #expect(request.header("Content-Type") == "application/x-www-form-urlencoded")
        #expect(request.formFields == [TestHTTPField("q", "a&b=c d+e"), TestHTTPField("language", "de")])
        #expect(request.header("Expect") == nil)
    }

    @Test func postMultipartSendsFieldsAndFile() async throws {
        let server = try TestHTTPServer { _ in self.text(#"{"text": "hi"}"#) }
        defer { server.shutdown() }
        // Binary content with zero bytes, large enough that libcurl would otherwise send "Expect: 100-continue".
        let audio = Data((0..<20_000).map { UInt8(truncatingIfNeeded: $0 * 7) })
        let file = HTTPFilePart(fieldName: "file", fileName: "speech.wav", contentType: "audio/wav", content: audio)
        let response = try await client.send(.postMultipart(
            server.baseURL.appendingPathComponent("v1/audio/transcriptions"),
            fields: [HTTPField("model", "whisper-1"), HTTPField("language", "en")], files: [file],
            headers: [HTTPField("Authorization", "Bearer sk-test")]))
        #expect(response.text == #"{"text": "hi"}"#)
        let request = try #require(server.requests.first)
        #expect(request.method == "POST")
        #expect(request.header("Authorization") == "Bearer sk-test")
        #expect(request.header("Expect") == nil)
        let parts = request.multipartParts
        #expect(parts.map(\.name) == ["model", "language", "file"])
        #expect(parts[0].content == Data("whisper-1".utf8))
        #expect(parts[1].content == Data("en".utf8))
        #expect(parts[2].fileName == "speech.wav")
        #expect(parts[2].contentType == "audio/wav")
        #expect(parts[2].content == audio)
    }

    @Test func compressedResponseIsDecoded() async throws {
        let gzipped = Data([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xff, 0x4b, 0xce, 0xcf, 0x2d,
                            0x28, 0x4a, 0x2d, 0x2e, 0x4e, 0x4d, 0x51, 0xc8, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00,
                            0xb6, 0x01, 0x99, 0x46, 0x10, 0x00, 0x00, 0x00])
        let server = try TestHTTPServer { _ in
            TestHTTPResponse(status: 200, contentType: "text/plain", body: gzipped,
                             headers: [TestHTTPField("Content-Encoding", "gzip")])
        }
        defer { server.shutdown() }
        let response = try await client.send(.get(server.baseURL, headers: [HTTPField("Accept-Encoding", "gzip, deflate")]))
        #expect(response.text == "compressed hello")
        #expect(server.requests.first?.header("Accept-Encoding") == "gzip, deflate")
    }

    /// A body without end (2.9 GB and a crash before) or a gzip bomb (256 MiB from 255 KB) is
    /// stopped where libcurl hands it over, decoded: at `maximumBodyBytes`, and no more memory.
    @Test(arguments: [false, true])
    func aHugeOrEndlessBodyIsStoppedAtTheLimit(gzipBomb: Bool) async throws {
        let folder = try TestPaths.temporaryDirectory("http-bomb")
        defer { try? FileManager.default.removeItem(at: folder) }
        var answer = TestHTTPResponse(status: 200, contentType: "application/json", body: Data(repeating: 0x20, count: 64 * 1024))
        if gzipBomb {
            answer.body = try TestArchives.gzippedZeros(256 << 20, in: folder)
            answer.headers.append(TestHTTPField("Content-Encoding", "gzip"))
        } else {
            answer.endless = true
        }
        let server = try TestHTTPServer { [answer] _ in answer }
        defer { server.shutdown() }
        #expect(ProcessStatus.resetPeak())
        let before = try #require(ProcessStatus.kibibytes("VmHWM"))
        let error = await #expect(throws: HTTPError.self) {
            try await client.send(.get(server.baseURL, headers: [HTTPField("Accept-Encoding", "gzip")]))
        }
        #expect(error == .bodyTooLarge(url: server.baseURL.absoluteString, limit: HTTPClient.maximumBodyBytes))
        #expect(SUSIError.http(try #require(error), attempts: 1).description.hasPrefix("SUSI server sent too much"))
        let grown = try #require(ProcessStatus.kibibytes("VmHWM")) - before
        #expect(grown < 64 * 1024, "the peak of resident memory grew by \(grown) KiB")
    }

    /// An error's summary reads the first 4 KiB of the body (a 50 MB body took 3.5 s of CPU),
    /// and drops what a terminal would act on.
    @Test func anErrorBodyIsSummarisedShortAndPrintable() async throws {
        let body = "\u{1B}[2J\u{07}oops " + String(repeating: "spam ", count: 200_000)
        let server = try TestHTTPServer { _ in self.text(body, status: 500) }
        defer { server.shutdown() }
        let error = await #expect(throws: HTTPError.self) { try await client.send(.get(server.baseURL)).requireSuccess() }
        guard case .status(_, 500, let summary)? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(summary.hasPrefix("[2Joops spam") && summary.count <= 121, "\(summary)")
    }

    @Test func aRedirectToAFileURLIsRefusedSayingSo() async throws {
        let server = try TestHTTPServer { _ in self.text("", status: 302, headers: [TestHTTPField("Location", "file:///etc/passwd")]) }
        defer { server.shutdown() }
        let error = await #expect(throws: HTTPError.self) { try await client.send(.get(server.baseURL)) }
        guard case .refusedRedirect(let url, _)? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(url == server.baseURL.absoluteString)
        #expect(SUSIError.http(try #require(error), attempts: 1).description.hasPrefix("SUSI server redirected elsewhere: "))
    }

    @Test func errorStatusIsAResponseAndRequireSuccessThrowsWithThePageTitle() async throws {
        let page = "<html><head><title>Error 500 Server Error</title></head><body>stack trace</body></html>"
        let server = try TestHTTPServer { _ in TestHTTPResponse(status: 500, contentType: "text/html", body: page) }
        defer { server.shutdown() }
        let url = server.baseURL.appendingPathComponent("fail")
        let response = try await client.send(.get(url))
        #expect(response.status == 500)
        #expect(!response.isSuccess)
        #expect(throws: HTTPError.status(url: url.absoluteString, status: 500, body: "Error 500 Server Error")) {
            try response.requireSuccess()
        }
    }

    @Test func refusedConnectionIsCouldNotConnect() async throws {
        let error = await #expect(throws: HTTPError.self) {
            try await client.send(.get(URL(string: "http://127.0.0.1:1/x")!))
        }
        guard case .couldNotConnect(let url, _) = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(url == "http://127.0.0.1:1/x")
        #expect(error?.isConnectionFailure == true)
        #expect(error?.description.hasPrefix("couldn't connect to http://127.0.0.1:1/x") == true)
    }

    @Test func totalTimeoutEndsASlowRequestInTime() async throws {
        let server = try TestHTTPServer { _ in
            TestHTTPResponse(status: 200, contentType: "text/plain", body: "late", delay: .seconds(10))
        }
        defer { server.shutdown() }
        let quick = HTTPClient(timeouts: HTTPTimeouts(connect: .seconds(1), total: .milliseconds(400)))
        let started = ContinuousClock.now
        let error = await #expect(throws: HTTPError.self) { try await quick.send(.get(server.baseURL)) }
        let elapsed = ContinuousClock.now - started
        #expect(error == .timedOut(url: server.baseURL.absoluteString, seconds: 0.4))
        #expect(error?.description.hasSuffix("timed out after 0.4 s") == true)
        #expect(error?.isConnectionFailure == false)
        #expect(elapsed >= .milliseconds(400) && elapsed < .milliseconds(2400), "took \(elapsed)")
    }

    @Test func cancellingTheTaskAbortsTheTransfer() async throws {
        let server = try TestHTTPServer { _ in
            TestHTTPResponse(status: 200, contentType: "text/plain", body: "late", delay: .seconds(10))
        }
        defer { server.shutdown() }
        let started = ContinuousClock.now
        let task = Task { try await client.send(.get(server.baseURL)) }
        try await Task.sleep(for: .milliseconds(200))
        task.cancel()
        let result = await task.result
        #expect(throws: HTTPError.cancelled(url: server.baseURL.absoluteString)) { try result.get() }
        #expect(ContinuousClock.now - started < .seconds(2))
    }

    @Test func secretQueryValuesNeverReachLogsOrErrors() async throws {
        let capture = LogCapture()
        let logged = HTTPClient(logger: capture.logger())
        let server = try TestHTTPServer { _ in self.text("ok") }
        defer { server.shutdown() }
        let query = [HTTPField("login", "me"), HTTPField("password", "hunter2-secret", isSecret: true)]
        _ = try await logged.send(.get(server.baseURL, query: query))
        #expect(server.requests.first?.query("password") == "hunter2-secret")
        let error = await #expect(throws: HTTPError.self) {
            try await logged.send(.get(URL(string: "http://127.0.0.1:1/")!, query: query))
        }
        #expect(error?.url == "http://127.0.0.1:1/?login=me&password=<redacted>")
        #expect(capture.lines.count == 2)
        #expect(!capture.lines.joined().contains("hunter2"))
        #expect(capture.lines.allSatisfy { $0.contains("password=<redacted>") })
    }

    @Test func onlyHTTPAndHTTPSURLsAreFetched() async throws {
        let error = await #expect(throws: HTTPError.self) { try await client.send(.get(URL(string: "file:///etc/passwd")!)) }
        guard case .invalidURL = error else { Issue.record("got \(String(describing: error))"); return }
    }

    @Test func retryPolicyRepeatsServerErrorsThenSucceeds() async throws {
        let counter = RequestCounter()
        let server = try TestHTTPServer { _ in
            counter.next() <= 2 ? self.text("busy", status: 503) : self.text("ok")
        }
        defer { server.shutdown() }
        let (result, attempts) = await client.send(.get(server.baseURL),
                                                   retrying: HTTPRetryPolicy(attempts: 4, baseDelay: .milliseconds(10)))
        #expect(try result.get().text == "ok")
        #expect(attempts == 3)
        #expect(server.requests.count == 3)
    }

    @Test func retryPolicyDoesNotRepeatClientErrors() async throws {
        let server = try TestHTTPServer { _ in self.text("bad", status: 400) }
        defer { server.shutdown() }
        let (result, attempts) = await client.send(.get(server.baseURL),
                                                   retrying: HTTPRetryPolicy(attempts: 4, baseDelay: .milliseconds(10)))
        #expect(try result.get().status == 400)
        #expect(attempts == 1)
        #expect(server.requests.count == 1)
    }

    @Test func retryDelayDoublesFromTheBaseDelay() {
        let policy = HTTPRetryPolicy(attempts: 5, baseDelay: .milliseconds(250))
        #expect((1...4).map(policy.delay(afterAttempt:)) == [.milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2)])
        #expect(HTTPRetryPolicy(attempts: 0, baseDelay: .zero).attempts == 1)
    }
}

/// Numbers the requests a test server handler sees, from 1.
final class RequestCounter: @unchecked Sendable {  // @unchecked: `count` is guarded by `lock`
    private let lock = NSLock()
    private var count = 0

    func next() -> Int { lock.withLock { count += 1; return count } }
}
