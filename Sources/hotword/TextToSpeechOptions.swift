import ArgumentParser
import HotwordAssistant
import HotwordWyoming

/// The `[tts]` backends, as `say --backend` and `run --tts` take them.
extension TextToSpeechSettings.Backend: ExpressibleByArgument {}

/// Chooses and configures the text-to-speech backend from the command line, over `[tts]` of
/// `hotword.toml`: what is not given here is as configured.
struct TextToSpeechOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The text-to-speech engine: espeak (embedded espeak-ng), command (a program) or wyoming (a Wyoming server). Default: tts.backend, else espeak.", valueName: "BACKEND"))
    var backend: TextToSpeechSettings.Backend?

    @Option(help: "espeak: the voice, optionally with a variant (en-us, de, en-us+klatt4; see `espeak-ng --voices`). Default: tts.espeak.voice, else en-us.")
    var voice: String?

    @Option(help: "espeak: words per minute (\(EspeakConfiguration.rates.lowerBound)–\(EspeakConfiguration.rates.upperBound)). Default: tts.espeak.rate, else 175.")
    var rate: Int?

    @Option(help: "espeak: base pitch (0–100). Default: tts.espeak.pitch, else 50.")
    var pitch: Int?

    @Option(help: ArgumentHelp(
        "command: the program and its arguments, separated by spaces (no shell). It reads the text on stdin and writes a WAV file to {wav}, or to stdout without {wav}. Default: tts.command.arguments.",
        valueName: "COMMAND"))
    var command: String?

    @Option(help: ArgumentHelp("wyoming: the server, e.g. tcp://127.0.0.1:10200 (wyoming-piper). Default: tts.wyoming.uri.", valueName: "URI"))
    var wyoming: String?

    @Option(help: ArgumentHelp("wyoming: the voice to ask for. Default: tts.wyoming.voice, else the server's.", valueName: "NAME"))
    var wyomingVoice: String?

    @Option(help: ArgumentHelp("command and wyoming: seconds one text may take. Default: as configured, else 60 and 30.", valueName: "SECONDS"))
    var timeout: Double?

    func validate() throws {
        if backend == TextToSpeechSettings.Backend.none { throw ValidationError("--backend none would say nothing: choose espeak, command or wyoming.") }
        try Self.checkVoice(voice)
        if let rate, !EspeakConfiguration.rates.contains(rate) {
            throw ValidationError("--rate must be \(EspeakConfiguration.rates.lowerBound)–\(EspeakConfiguration.rates.upperBound) words per minute, not \(rate).")
        }
        if let pitch, !EspeakConfiguration.pitches.contains(pitch) {
            throw ValidationError("--pitch must be \(EspeakConfiguration.pitches.lowerBound)–\(EspeakConfiguration.pitches.upperBound), not \(pitch).")
        }
        if let timeout, timeout <= 0 { throw ValidationError("--timeout must be positive, not \(timeout).") }
        if let command, CommandLineWords.split(command).isEmpty { throw ValidationError("--command names no program.") }
        if let wyoming {
            do { _ = try WyomingEndpoint(parsing: wyoming) } catch { throw ValidationError("--wyoming: \(error)") }
        }
    }

    /// `--voice`, wherever it is given, is a voice espeak-ng has.
    static func checkVoice(_ voice: String?) throws {
        if let voice, try EspeakSynthesizer.language(ofVoice: voice) == nil {
            throw ValidationError("--voice \(voice): espeak-ng has no such voice (`espeak-ng --voices` lists them).")
        }
    }

    /// `configured` with the options given here over it.
    func settings(over configured: TextToSpeechSettings) throws -> TextToSpeechBackend {
        var settings = configured
        if let backend { settings.backend = backend }
        if let voice { settings.espeak.voice = voice }
        if let rate { settings.espeak.rate = rate }
        if let pitch { settings.espeak.pitch = pitch }
        if let command { settings.commandArguments = CommandLineWords.split(command) }
        if let wyoming { settings.wyoming.endpoint = try WyomingEndpoint(parsing: wyoming) }
        if let wyomingVoice { settings.wyoming.name = wyomingVoice }
        if let timeout {
            settings.commandTimeoutSeconds = timeout
            settings.wyoming.timeout = .milliseconds(Int(timeout * 1000))
        }
        if settings.backend == .command, settings.commandArguments.isEmpty {
            throw ValidationError("--backend command needs --command (or tts.command.arguments), e.g. --command 'piper --model voice.onnx --output_file {wav}'.")
        }
        if settings.backend == .none {
            throw ValidationError("tts.backend is \"none\", which would say nothing: choose one with --backend.")
        }
        if settings.backend == .espeak, try EspeakSynthesizer.language(ofVoice: settings.espeak.voice) == nil {
            throw CommandFailure("tts.espeak.voice = \"\(settings.espeak.voice)\": espeak-ng has no such voice (`espeak-ng --voices` lists them)",
                                 status: .configuration)
        }
        return settings.selected
    }
}
