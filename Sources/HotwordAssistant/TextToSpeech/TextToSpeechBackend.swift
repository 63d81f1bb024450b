/// Which text-to-speech engine to use and its settings, as configured by the user.
public enum TextToSpeechBackend: Sendable, Equatable {
    /// The embedded synthesiser (the default).
    case espeak(EspeakConfiguration)
    /// An external program reading the text on stdin (see `CommandSynthesizer`).
    case command(arguments: [String], timeout: Duration)
    /// A Wyoming text-to-speech server (wyoming-piper, …).
    case wyoming(WyomingServiceConfiguration)
    /// No speech: answers are only printed.
    case none

    /// The synthesiser for these settings, or nil for `none`.
    public func makeSynthesizer() throws(TextToSpeechError) -> (any SpeechSynthesizer)? {
        switch self {
        case .espeak(let configuration): try EspeakSynthesizer(configuration)
        case .command(let arguments, let timeout): try CommandSynthesizer(arguments: arguments, timeout: timeout)
        case .wyoming(let configuration): WyomingSynthesizer(configuration)
        case .none: nil
        }
    }
}
