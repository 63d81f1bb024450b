import Foundation
import HotwordCore
import HotwordWyoming

/// A Wyoming speech service (wyoming-faster-whisper, wyoming-piper, …): where it is, which model
/// or voice (`name`) and language to ask for, and how long one request may take in all.
public struct WyomingServiceConfiguration: Sendable, Equatable {
    public var endpoint: WyomingEndpoint
    /// Speech to text: the model (`transcribe` name); text to speech: the voice. nil: the server's default.
    public var name: String?
    /// ISO 639-1 (`en`, `de`); nil: the server's default.
    public var language: String?
    /// Connecting, sending and the whole answer must finish within this.
    public var timeout: Duration

    public init(endpoint: WyomingEndpoint, name: String? = nil, language: String? = nil, timeout: Duration = .seconds(30)) {
        self.endpoint = endpoint
        self.name = name
        self.language = language
        self.timeout = timeout
    }

    /// One request on a fresh connection, off Swift's cooperative threads (the socket calls block).
    func exchange<Value: Sendable, Failure: Error>(
        on queue: EngineQueue, _ work: @escaping @Sendable (WyomingClientConnection) throws(Failure) -> Value,
        wrap: @escaping @Sendable (WyomingClientError) -> Failure
    ) async throws(Failure) -> Value {
        let configuration = self
        return try await queue.run { () throws(Failure) -> Value in
            let connection: WyomingClientConnection
            do throws(WyomingClientError) { connection = try WyomingClientConnection(to: configuration.endpoint, timeout: configuration.timeout) } catch {
                throw wrap(error)
            }
            return try work(connection)
        }
    }
}

/// Speech to text by a Wyoming server: `transcribe` (name, language), the utterance as 16 kHz
/// 16-bit mono audio (`audio-start`, 64 ms `audio-chunk`s, `audio-stop`), answered by `transcript`.
public struct WyomingRecognizer: SpeechRecognizer {
    public let configuration: WyomingServiceConfiguration
    private let queue = EngineQueue(label: "hotword.stt.wyoming")
    private static let bytesPerChunk = 2_048

    public init(_ configuration: WyomingServiceConfiguration) {
        self.configuration = configuration
    }

    public func transcribe(_ samples: [Float]) async throws(SpeechToTextError) -> String {
        let configuration = configuration
        return try await configuration.exchange(on: queue, { (connection) throws(SpeechToTextError) -> String in
            do throws(WyomingClientError) {
                var request: [String: JSONValue] = [:]
                if let name = configuration.name { request["name"] = .string(name) }
                if let language = configuration.language { request["language"] = .string(language) }
                try connection.send(WyomingEvent(type: "transcribe", data: request))
                let format: [String: JSONValue] = ["rate": .number(Double(AudioFormat.sampleRate)), "width": 2, "channels": 1]
                try connection.send(WyomingEvent(type: "audio-start", data: format.merging(["timestamp": 0]) { $1 }))
                let pcm = PCMFormat.pcm16(samples)
                for offset in stride(from: 0, to: pcm.count, by: Self.bytesPerChunk) {
                    let milliseconds = Double(offset / 2 * 1000 / AudioFormat.sampleRate)
                    try connection.send(WyomingEvent(type: "audio-chunk", data: format.merging(["timestamp": .number(milliseconds)]) { $1 },
                                                     payload: Array(pcm[offset..<min(offset + Self.bytesPerChunk, pcm.count)])))
                }
                try connection.send(WyomingEvent(type: "audio-stop", data: ["timestamp": .number(Double(samples.count * 1000 / AudioFormat.sampleRate))]))
                while true {
                    let event = try connection.receive(waitingFor: "transcript")
                    switch event.type {
                    case "transcript":
                        guard let text = event.data["text"]?.string else {
                            throw WyomingClientError.serverError(endpoint: configuration.endpoint.description, text: "a transcript without text: \(event.data)")
                        }
                        return normalizedTranscript(text)
                    case "error":
                        throw WyomingClientError.serverError(endpoint: configuration.endpoint.description, text: event.data["text"]?.string ?? "\(event.data)")
                    default:
                        continue  // transcript-start, transcript-chunk…: the final transcript follows
                    }
                }
            } catch {
                throw .wyoming(error)
            }
        }, wrap: { .wyoming($0) })
    }
}

/// Text to speech by a Wyoming server: `synthesize` (text, voice), answered by `audio-start`,
/// `audio-chunk`s and `audio-stop`; the audio is kept at the server's rate and played at it.
public struct WyomingSynthesizer: SpeechSynthesizer {
    public let configuration: WyomingServiceConfiguration
    private let queue = EngineQueue(label: "hotword.tts.wyoming")

    public init(_ configuration: WyomingServiceConfiguration) {
        self.configuration = configuration
    }

    public func synthesize(_ text: String) async throws(TextToSpeechError) -> SynthesizedAudio {
        let configuration = configuration
        return try await configuration.exchange(on: queue, { (connection) throws(TextToSpeechError) -> SynthesizedAudio in
            let server = configuration.endpoint.description
            var voice: [String: JSONValue] = [:]
            if let name = configuration.name { voice["name"] = .string(name) }
            if let language = configuration.language { voice["language"] = .string(language) }
            var samples: [Float] = []
            var rate: Int?
            do {
                try connection.send(WyomingEvent(type: "synthesize", data: voice.isEmpty ? ["text": .string(text)] : ["text": .string(text), "voice": .object(voice)]))
                while true {
                    let event = try connection.receive(waitingFor: "audio")
                    switch event.type {
                    case "audio-chunk":
                        let format = PCMFormat(rate: event.data["rate"]?.integer ?? 0, width: event.data["width"]?.integer ?? 0,
                                               channels: event.data["channels"]?.integer ?? 0)
                        guard rate == nil || rate == format.rate else {
                            throw TextToSpeechError.wyomingAudioInvalid(server: server, reason: "the rate changed from \(rate!) to \(format.rate) Hz")
                        }
                        rate = format.rate
                        do throws(PCMConversionError) { samples += try format.monoSamples(event.payload) } catch {
                            throw TextToSpeechError.wyomingAudioInvalid(server: server, reason: error.description)
                        }
                    case "audio-stop":
                        guard let rate else { throw TextToSpeechError.wyomingAudioInvalid(server: server, reason: "no audio before audio-stop") }
                        return SynthesizedAudio(samples: samples, sampleRate: rate)
                    case "error":
                        throw WyomingClientError.serverError(endpoint: server, text: event.data["text"]?.string ?? "\(event.data)")
                    default:
                        continue  // audio-start (each chunk states its format again), synthesize-*…
                    }
                }
            } catch let error as WyomingClientError {
                throw .wyoming(error)
            } catch let error as TextToSpeechError {
                throw error
            } catch {
                throw .wyomingAudioInvalid(server: server, reason: "\(error)")
            }
        }, wrap: { .wyoming($0) })
    }
}
