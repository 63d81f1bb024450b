import Foundation
import HotwordJSON
import HotwordSUSI

/// Where and how to reach an OpenAI-compatible transcription server.
public struct HTTPRecognizerConfiguration: Sendable, Equatable {
    /// The full endpoint, e.g. `http://127.0.0.1:8080/v1/audio/transcriptions`
    /// (whisper.cpp's server answers the same request on `/inference`).
    public var url: URL
    /// The `model` form field (`whisper-1` for OpenAI; local servers often ignore it).
    public var model: String
    /// The spoken language as ISO 639-1 (`en`, `de`); nil lets the server detect it.
    public var language: String?
    /// Sent as `Authorization: Bearer …` when set; never logged.
    public var apiKey: String?
    /// The whole request (connecting, uploading, transcribing) must finish within this.
    public var timeout: Duration

    public init(url: URL, model: String = "whisper-1", language: String? = nil, apiKey: String? = nil,
                timeout: Duration = .seconds(30)) {
        self.url = url
        self.model = model
        self.language = language
        self.apiKey = apiKey
        self.timeout = timeout
    }
}

/// Speech to text by a server speaking OpenAI's `POST /v1/audio/transcriptions`: the
/// utterance goes up as a 16 kHz 16-bit WAV in a multipart form (`file`, `model`, `language`,
/// `response_format=json`) and the answer is `{"text": "…"}`.
public struct HTTPRecognizer: SpeechRecognizer {
    public let configuration: HTTPRecognizerConfiguration
    private let client: HTTPClient

    public init(_ configuration: HTTPRecognizerConfiguration) {
        self.configuration = configuration
        let connect = min(configuration.timeout, .seconds(5))
        client = HTTPClient(timeouts: HTTPTimeouts(connect: connect, total: configuration.timeout),
                            logger: .init(label: "hotword.stt"))
    }

    public func transcribe(_ samples: [Float]) async throws(SpeechToTextError) -> String {
        let wav = try Self.encodeWAV(samples)
        var fields = [HTTPField("model", configuration.model), HTTPField("response_format", "json")]
        if let language = configuration.language { fields.append(HTTPField("language", language)) }
        let headers = configuration.apiKey.map { [HTTPField("Authorization", "Bearer \($0)", isSecret: true)] } ?? []
        let request = HTTPRequest.postMultipart(
            configuration.url, fields: fields,
            files: [HTTPFilePart(fieldName: "file", fileName: "utterance.wav", contentType: "audio/wav", content: wav)],
            headers: headers)
        let response: HTTPResponse
        do { response = try await client.send(request).requireSuccess() } catch { throw .http(error) }
        return try Self.transcript(in: response)
    }

    /// The utterance as the bytes of a 16-bit WAV file (written through a scratch file, as
    /// libsndfile writes files).
    private static func encodeWAV(_ samples: [Float]) throws(SpeechToTextError) -> Data {
        let (folder, wav) = try ScratchFolder.holdingUtterance(samples)
        defer { folder.remove() }
        do {
            return try Data(contentsOf: wav)
        } catch {
            throw .audioNotWritten(path: wav.path, reason: "\(error)")
        }
    }

    private struct TranscriptionReply: Decodable {
        let text: String
    }

    /// A transcript reply is one object of strings; deeper JSON could exhaust a task's stack in the decoder.
    private static let maximumReplyDepth = 16

    private static func transcript(in response: HTTPResponse) throws(SpeechToTextError) -> String {
        if JSONNesting.firstOffset(deeperThan: maximumReplyDepth, in: response.body) != nil {
            throw .httpReplyInvalid(url: response.url, reason: "JSON nested more than \(maximumReplyDepth) deep", body: response.bodySummary)
        }
        do {
            return normalizedTranscript(try JSONDecoder().decode(TranscriptionReply.self, from: response.body).text)
        } catch {
            throw .httpReplyInvalid(url: response.url, reason: "expected JSON with a \"text\" string", body: response.bodySummary)
        }
    }
}
