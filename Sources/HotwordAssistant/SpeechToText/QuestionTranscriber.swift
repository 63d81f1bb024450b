import HotwordTranscripts
import Logging

/// A question as text, and which engine heard it.
struct Transcription: Sendable, Equatable {
    /// As asked of SUSI, the same whichever engine heard it (`QuestionText`).
    var text: String
    var engine: SpeechToTextSettings.Backend
    /// Set when this question found the configured engine gone (the reason) or back.
    var availability: EngineAvailability?
}

/// The configured engine went away (`lost`, with why) or answers again.
enum EngineAvailability: Sendable, Equatable {
    case lost(SpeechToTextError)
    case restored
}

/// Transcribes questions with the configured engine, and with pocketsphinx while that engine
/// cannot be used (a server down or unreachable, a program failing), so that the assistant is
/// never deaf because something outside it is. Every question tries the configured engine
/// first, so it is used again as soon as it answers; a refused connection costs nothing, a
/// server that hangs costs its `timeout_s`. The first failure of an outage and the first answer
/// after it are reported once (`Transcription.availability`), not at every question.
/// pocketsphinx is loaded at the first outage (about a second), then kept.
actor QuestionTranscriber {
    /// The engine configured (`auto` made concrete).
    nonisolated let engine: SpeechToTextSettings.Backend
    private let recognizer: any SpeechRecognizer
    /// nil: no fallback (configured `none`, or pocketsphinx is the engine).
    private let fallback: PocketSphinxConfiguration?
    private var fallbackRecognizer: PocketSphinxRecognizer?
    private var engineDown = false
    private let logger = Logger(label: "hotword.stt")

    /// With `auto`, a Whisper model that will not load (a damaged installation) leaves the
    /// questions to pocketsphinx, with a warning, rather than the assistant unable to start.
    init(_ configured: SpeechToTextSettings, installedWhisper: [String] = SpeechToTextSettings.installedWhisperFolders)
        async throws(SpeechToTextError) {
        var settings = configured.concrete(installedWhisper: installedWhisper)
        do {
            recognizer = try await settings.selected.makeRecognizer()
        } catch where configured.backend == .auto && settings.backend == .whisper {
            Logger(label: "hotword.stt").warning("\(error.description); hearing questions with pocketsphinx instead")
            settings.backend = .pocketsphinx
            recognizer = try await settings.selected.makeRecognizer()
        }
        engine = settings.backend
        fallback = settings.backend != .pocketsphinx && settings.fallback == .pocketsphinx ? settings.pocketsphinx : nil
    }

    func transcribe(_ samples: [Float]) async throws(SpeechToTextError) -> Transcription {
        let failure: SpeechToTextError
        do {
            let text = try await recognizer.transcribe(samples)
            let restored = engineDown
            engineDown = false
            if restored { logger.notice("speech to text (\(engine.rawValue)) answers again: using it") }
            return Transcription(text: QuestionText.normalized(text), engine: engine, availability: restored ? .restored : nil)
        } catch {
            failure = error
        }
        // Cancelled (a wake word cut the question short): nobody waits for a transcript.
        guard let fallback, !Task.isCancelled else { throw failure }
        let outageBegins = !engineDown
        engineDown = true
        if outageBegins { logger.warning("\(failure.description); using pocketsphinx until it answers again") }
        let text = try await fallbackRecognizer(fallback).transcribe(samples)
        return Transcription(text: QuestionText.normalized(text), engine: .pocketsphinx, availability: outageBegins ? .lost(failure) : nil)
    }

    private func fallbackRecognizer(_ configuration: PocketSphinxConfiguration) async throws(SpeechToTextError) -> PocketSphinxRecognizer {
        if let fallbackRecognizer { return fallbackRecognizer }
        let loaded = try await PocketSphinxRecognizer(configuration)
        fallbackRecognizer = loaded
        return loaded
    }
}
