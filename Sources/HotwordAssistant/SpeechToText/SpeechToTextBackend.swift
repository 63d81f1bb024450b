/// Which speech-to-text engine to use and its settings, as configured by the user.
public enum SpeechToTextBackend: Sendable, Equatable {
    /// The embedded offline recogniser (the default).
    case pocketsphinx(PocketSphinxConfiguration)
    /// An external program given the utterance as a WAV file (see `CommandRecognizer`).
    case command(arguments: [String], timeout: Duration)
    /// An OpenAI-compatible transcription server.
    case http(HTTPRecognizerConfiguration)
    /// A Wyoming speech-to-text server (wyoming-faster-whisper, …).
    case wyoming(WyomingServiceConfiguration)
    /// Whisper in-process (`HotwordWhisper`).
    case whisper(WhisperConfiguration)

    /// The recogniser for these settings; pocketsphinx and Whisper load their models here.
    public func makeRecognizer() async throws(SpeechToTextError) -> any SpeechRecognizer {
        switch self {
        case .pocketsphinx(let configuration): try await PocketSphinxRecognizer(configuration)
        case .command(let arguments, let timeout): try CommandRecognizer(arguments: arguments, timeout: timeout)
        case .http(let configuration): HTTPRecognizer(configuration)
        case .wyoming(let configuration): WyomingRecognizer(configuration)
        case .whisper(let configuration): try await WhisperRecognizer(configuration)
        }
    }
}
