import HotwordWhisper

/// `[stt.whisper]`: a Whisper model folder and how much audio its encoder sees.
public struct WhisperConfiguration: Sendable, Equatable {
    /// How much audio Whisper's encoder sees for a question.
    public enum Audio: String, Sendable, CaseIterable {
        /// The 30 s window Whisper was trained on, whatever the question's length: as faster-whisper
        /// hears (the same transcripts), about 1.4 CPU seconds a question here.
        case full
        /// The question and two seconds of silence after it: a third of the time for a 4 s
        /// question, but worse heard (docs/stt.md: 21 % against 16 % WER on the 120 questions).
        case utterance

        var window: WhisperModel.AudioWindow {
            switch self {
            case .full: .full
            case .utterance: .utterance(paddingSeconds: 2)
            }
        }
    }

    /// A CTranslate2 Whisper folder (model.bin, vocabulary.txt, config.json), as faster-whisper
    /// loads it; empty: none configured.
    public var model: String
    public var audio: Audio
    /// Threads the encoder shares its work among (it waits for none of the wake-word detector's:
    /// a question is heard while nobody speaks the wake word).
    public var threads: Int

    public init(model: String = "", audio: Audio = .full, threads: Int = 2) {
        self.model = model
        self.audio = audio
        self.threads = threads
    }
}

/// Whisper (English-only models such as tiny.en) run in-process by `HotwordWhisper`: no server,
/// no Python. The model is loaded once (under a second, 150 MB as float32); utterances are
/// transcribed one after the other on a queue of their own, off Swift's cooperative pool (each
/// takes a core or two for a fraction of a second to seconds).
public final class WhisperRecognizer: SpeechRecognizer {
    private static let engine = EngineQueue(label: "hotword.whisper")
    public let configuration: WhisperConfiguration
    private let model: WhisperModel

    /// Loads the model; throws naming the file and what was wrong with it.
    public init(_ configuration: WhisperConfiguration) async throws(SpeechToTextError) {
        guard !configuration.model.isEmpty else { throw .whisperModelNotConfigured }
        self.configuration = configuration
        model = try await Self.engine.run { () throws(SpeechToTextError) -> WhisperModel in
            do throws(WhisperModelError) { return try WhisperModel(folder: configuration.model) } catch { throw .whisper(error) }
        }
    }

    public func transcribe(_ samples: [Float]) async throws(SpeechToTextError) -> String {
        let (model, window, threads) = (model, configuration.audio.window, configuration.threads)
        return await Self.engine.run { normalizedTranscript(model.transcribe(samples, window: window, threads: threads).text) }
    }
}
