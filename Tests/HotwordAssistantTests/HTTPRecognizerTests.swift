import Foundation
import HotwordAssistant
import HotwordAudio
import HotwordTestSupport
import Testing

/// HTTPRecognizer against a real HTTP server on 127.0.0.1 playing an OpenAI-compatible
/// transcription service.
@Suite struct HTTPRecognizerTests {
    /// What the server decoded from the uploaded WAV file.
    struct ReceivedAudio: Equatable {
        var sampleRate: Int
        var channels: Int
        var samples: [Float]
    }

    /// Decodes the `file` part of a transcription request with libsndfile, as a server would.
    static func receivedAudio(_ request: TestHTTPRequest) throws -> ReceivedAudio? {
        guard let part = request.multipartParts.first(where: { $0.name == "file" }) else { return nil }
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent(part.fileName ?? "upload")
        try part.content.write(to: file)
        let info = try AudioFileReader.info(of: file)
        let audio = try AudioFileReader.read(file, sampleRate: info.sampleRate)
        return ReceivedAudio(sampleRate: info.sampleRate, channels: info.channels, samples: audio.samples)
    }

    static func json(_ status: Int, _ body: String, delay: Duration = .zero) -> TestHTTPResponse {
        TestHTTPResponse(status: status, contentType: "application/json", body: body, delay: delay)
    }

    /// A server whose transcript reports what it received, so the reply proves the upload was audio.
    static func describingServer() throws -> TestHTTPServer {
        try TestHTTPServer { request in
            guard request.method == "POST", request.path == "/v1/audio/transcriptions",
                  let audio = try? receivedAudio(request) else {
                return json(400, #"{"error": {"message": "expected a multipart upload with a file"}}"#)
            }
            return json(200, #"{"text": " \#(audio.samples.count) samples\n at \#(audio.sampleRate) Hz "}"#)
        }
    }

    @Test func uploadsTheUtteranceAsA16kHzWAVInAnOpenAIForm() async throws {
        let server = try Self.describingServer()
        defer { server.shutdown() }
        let url = server.baseURL.appendingPathComponent("v1/audio/transcriptions")
        let recognizer = HTTPRecognizer(HTTPRecognizerConfiguration(url: url, model: "whisper-1"))
        let samples = (0..<12_000).map { Float(sin(Double($0) * 0.05) * 0.5) }

        let text = try await recognizer.transcribe(samples)

        #expect(text == "12000 samples at 16000 Hz")
        let request = try #require(server.requests.first)
        #expect(request.header("Content-Type")?.hasPrefix("multipart/form-data") == true)
        let fields = Dictionary(request.multipartParts.filter { $0.fileName == nil }
            .map { ($0.name, String(decoding: $0.content, as: UTF8.self)) }, uniquingKeysWith: { first, _ in first })
        #expect(fields == ["model": "whisper-1", "response_format": "json"])
        let file = try #require(request.multipartParts.first { $0.name == "file" })
        #expect(file.contentType == "audio/wav")
        #expect(request.header("Authorization") == nil)
        let received = try #require(try Self.receivedAudio(request))
        #expect(received.channels == 1)
        let largestError = zip(received.samples, samples).map { abs($0 - $1) }.max() ?? 1
        #expect(largestError <= 1.0 / 32_768, "16-bit quantisation only, found \(largestError)")
    }

    @Test func sendsTheLanguageAndTheKeyWhenConfigured() async throws {
        let server = try Self.describingServer()
        defer { server.shutdown() }
        let recognizer = HTTPRecognizer(HTTPRecognizerConfiguration(
            url: server.baseURL.appendingPathComponent("v1/audio/transcriptions"), model: "base", language: "de",
            apiKey: "sk-test"))
        _ = try await recognizer.transcribe([Float](repeating: 0, count: 1_600))
        let request = try #require(server.requests.first)
        let language = request.multipartParts.first { $0.name == "language" }.map { String(decoding: $0.content, as: UTF8.self) }
        #expect(language == "de")
        #expect(request.header("Authorization") == "Bearer sk-test")
    }

    @Test func anErrorStatusIsReportedWithTheServersMessage() async throws {
        let server = try TestHTTPServer { _ in Self.json(503, #"{"error": "model is still loading"}"#) }
        defer { server.shutdown() }
        let url = server.baseURL.appendingPathComponent("v1/audio/transcriptions")
        let error = await #expect(throws: SpeechToTextError.self) {
            try await HTTPRecognizer(HTTPRecognizerConfiguration(url: url)).transcribe([0, 0])
        }
        guard case .http(.status(_, let status, let body)) = error else {
            Issue.record("unexpected \(String(describing: error))")
            return
        }
        #expect(status == 503 && body.contains("model is still loading"))
        #expect(error?.description.hasPrefix("speech to text (http):") == true)
    }

    @Test func aReplyWithoutTextIsReported() async throws {
        let server = try TestHTTPServer { _ in Self.json(200, #"{"transcript": "hello"}"#) }
        defer { server.shutdown() }
        let url = server.baseURL.appendingPathComponent("v1/audio/transcriptions")
        let error = await #expect(throws: SpeechToTextError.self) {
            try await HTTPRecognizer(HTTPRecognizerConfiguration(url: url)).transcribe([0, 0])
        }
        guard case .httpReplyInvalid(_, _, let body) = error else {
            Issue.record("unexpected \(String(describing: error))")
            return
        }
        #expect(body.contains("transcript"))
    }

    @Test func aSlowServerTimesOut() async throws {
        let server = try TestHTTPServer { _ in Self.json(200, #"{"text": "too late"}"#, delay: .seconds(10)) }
        defer { server.shutdown() }
        let url = server.baseURL.appendingPathComponent("v1/audio/transcriptions")
        let recognizer = HTTPRecognizer(HTTPRecognizerConfiguration(url: url, timeout: .milliseconds(500)))
        let started = ContinuousClock.now
        let error = await #expect(throws: SpeechToTextError.self) { try await recognizer.transcribe([0, 0]) }
        guard case .http(.timedOut) = error else {
            Issue.record("unexpected \(String(describing: error))")
            return
        }
        #expect(ContinuousClock.now - started < .seconds(5))
    }

    @Test func noServerIsAConnectionFailure() async throws {
        // A port that was just free: bind a server, note its port, shut it down.
        let server = try TestHTTPServer { _ in Self.json(200, "{}") }
        let url = server.baseURL.appendingPathComponent("v1/audio/transcriptions")
        server.shutdown()
        let error = await #expect(throws: SpeechToTextError.self) {
            try await HTTPRecognizer(HTTPRecognizerConfiguration(url: url)).transcribe([0, 0])
        }
        guard case .http(.couldNotConnect) = error else {
            Issue.record("unexpected \(String(describing: error))")
            return
        }
    }
}
