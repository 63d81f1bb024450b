import Foundation
import HotwordAssistant
import HotwordTestSupport
import HotwordWyoming
import Testing

/// A Wyoming speech server made of the reference implementation's server classes
/// (Tests/WyomingClient/wyoming_speech_server.py), on 127.0.0.1 and a port the system chose.
final class PythonSpeechServer: @unchecked Sendable {  // @unchecked: `process` is set once in init
    static let script = TestPaths.projectRoot.appendingPathComponent("Tests/WyomingClient/wyoming_speech_server.py")
    private let process = Process()
    let endpoint: WyomingEndpoint

    /// - Parameter port: 0 for any free one; another to come back where a stopped server was.
    init(mode: String = "normal", port: Int = 0) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Self.script.path, "--mode", mode, "--port", "\(port)"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        // Its first line names the port.
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let more = output.fileHandleForReading.availableData
            guard !more.isEmpty else { break }
            line += more
        }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.hasPrefix("listening on ") else {
            kill(process.processIdentifier, SIGKILL)
            throw WyomingEndpointError.invalid(text, "the speech server did not start")
        }
        endpoint = try WyomingEndpoint(parsing: String(text.dropFirst("listening on ".count)))
    }

    deinit {
        // SIGKILL: the test runner blocks SIGTERM, and a child inherits the blocked mask.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}

@Suite("Wyoming speech to text and text to speech")
struct WyomingBackendTests {
    /// `seconds` of a 300 Hz tone at 16 kHz.
    private func tone(seconds: Double) -> [Float] {
        (0..<Int(seconds * 16_000)).map { Float(0.3 * sin(2 * Double.pi * 300 * Double($0) / 16_000)) }
    }

    @Test func theUtteranceGoesUpAs16kHzMonoAndTheTranscriptComesBack() async throws {
        let server = try PythonSpeechServer()
        let recognizer = try await SpeechToTextBackend.wyoming(
            WyomingServiceConfiguration(endpoint: server.endpoint, name: "tiny-int8", language: "de", timeout: .seconds(20))).makeRecognizer()
        let text = try await recognizer.transcribe(tone(seconds: 1.5))
        #expect(text == "heard 24000 samples at 16000 Hz, 2 bytes, 1 channels, language de, model tiny-int8")
        // Without a model or language the server's defaults apply.
        let plain = WyomingRecognizer(WyomingServiceConfiguration(endpoint: server.endpoint))
        #expect(try await plain.transcribe(tone(seconds: 0.5)) == "heard 8000 samples at 16000 Hz, 2 bytes, 1 channels, language None, model None")
    }

    @Test func speechComesBackAtTheServersRate() async throws {
        let server = try PythonSpeechServer()
        let synthesizer = try #require(try TextToSpeechBackend.wyoming(WyomingServiceConfiguration(endpoint: server.endpoint, name: "en_US-lessac-medium"))
            .makeSynthesizer())
        let audio = try await synthesizer.synthesize("it is sunny today")
        #expect(audio.sampleRate == 22_050)
        #expect(abs(audio.duration - 0.4) < 0.001, "0.1 s per word: \(audio.duration)")
        let peak = audio.samples.map(abs).max() ?? 0
        #expect(abs(peak - 0.5) < 0.01, "half scale: \(peak)")
    }

    @Test func aServersErrorEventIsReportedWithItsText() async throws {
        let server = try PythonSpeechServer(mode: "error")
        let configuration = WyomingServiceConfiguration(endpoint: server.endpoint, timeout: .seconds(20))
        let expected = WyomingClientError.serverError(endpoint: server.endpoint.description, text: "model not loaded")
        await #expect(throws: SpeechToTextError.wyoming(expected)) { try await WyomingRecognizer(configuration).transcribe(tone(seconds: 0.2)) }
        await #expect(throws: TextToSpeechError.wyoming(expected)) { try await WyomingSynthesizer(configuration).synthesize("hello") }
        #expect(SpeechToTextError.wyoming(expected).description == "speech to text (wyoming): \(server.endpoint) answered: model not loaded")
    }

    @Test func aServerThatNeverAnswersTimesOut() async throws {
        let server = try PythonSpeechServer(mode: "silent")
        let began = ContinuousClock.now
        await #expect(throws: SpeechToTextError.wyoming(.timedOut(endpoint: server.endpoint.description, waitingFor: "transcript", after: .seconds(1)))) {
            try await WyomingRecognizer(WyomingServiceConfiguration(endpoint: server.endpoint, timeout: .seconds(1))).transcribe(tone(seconds: 0.2))
        }
        let waited = ContinuousClock.now - began
        #expect(waited >= .seconds(1) && waited < .seconds(3), "\(waited)")
    }

    @Test func nobodyListeningIsACannotConnect() async throws {
        // A port that was just free: bound by a server that is gone.
        let endpoint = try PythonSpeechServer().endpoint
        try await Task.sleep(for: .milliseconds(200))
        do {
            _ = try await WyomingSynthesizer(WyomingServiceConfiguration(endpoint: endpoint, timeout: .seconds(5))).synthesize("hello")
            Issue.record("spoke without a server")
        } catch {
            guard case .wyoming(.cannotConnect(let name, let reason)) = error else { Issue.record("\(error)"); return }
            #expect(name == endpoint.description && reason.contains("refused"), "\(reason)")
        }
    }

    @Test func theBackendsAreChosenAndSetInHotwordToml() {
        var configuration = AssistantConfiguration(clientVersion: "test")
        let errors = ConfigurationLoader.apply(toml: """
            [stt]
            backend = "wyoming"
            [stt.wyoming]
            uri = "tcp://whisper.local:10300"
            model = "small-int8"
            language = "en"
            timeout_s = 12
            [tts]
            backend = "wyoming"
            [tts.wyoming]
            uri = "unix:///run/piper.sock"
            voice = "en_GB-alba-medium"
            """, file: "hotword.toml", to: &configuration)
        #expect(errors == [])
        #expect(configuration.stt.selected == .wyoming(WyomingServiceConfiguration(
            endpoint: .tcp(host: "whisper.local", port: 10_300), name: "small-int8", language: "en", timeout: .seconds(12))))
        #expect(configuration.tts.selected == .wyoming(WyomingServiceConfiguration(
            endpoint: .unix(path: "/run/piper.sock"), name: "en_GB-alba-medium", timeout: .seconds(30))))
    }
}
