import ArgumentParser
import HotwordAssistant
import HotwordWyoming

/// The `[tts]` backends, as `say --backend` and `run --tts` take them.
extension TextToSpeechSettings.Backend: ExpressibleByArgument {}

/// Chooses and configures the text-to-speech backend from the command line.
struct TextToSpeechOptions: ParsableArguments {
    @Option(help: "The text-to-speech engine: espeak (embedded espeak-ng), command (a program) or wyoming (a Wyoming server).")
    var backend: TextToSpeechSettings.Backend = .espeak

    @Option(help: "espeak: the voice, optionally with a variant (en-us, de, en-us+klatt4; see `espeak-ng --voices`).")
    var voice: String = EspeakConfiguration().voice

    @Option(help: "espeak: words per minute (80–450).")
    var rate: Int = EspeakConfiguration().rate

    @Option(help: "espeak: base pitch (0–100).")
    var pitch: Int = EspeakConfiguration().pitch

    @Option(help: ArgumentHelp(
        "command: the program and its arguments, separated by spaces (no shell). It reads the text on stdin and writes a WAV file to {wav}, or to stdout without {wav}.",
        valueName: "COMMAND"))
    var command: String?

    @Option(help: ArgumentHelp("wyoming: the server, e.g. tcp://127.0.0.1:10200 (wyoming-piper).", valueName: "URI"))
    var wyoming: String = "tcp://127.0.0.1:10200"

    @Option(help: ArgumentHelp("wyoming: the voice to ask for (the server's default otherwise).", valueName: "NAME"))
    var wyomingVoice: String?

    @Option(help: ArgumentHelp("command and wyoming: seconds one text may take.", valueName: "SECONDS"))
    var timeout: Double = 60

    func validate() throws {
        if backend == .none { throw ValidationError("--backend none would say nothing: choose espeak, command or wyoming.") }
        guard timeout > 0 else { throw ValidationError("--timeout must be positive, not \(timeout).") }
        if backend == .command, CommandLineWords.split(command ?? "").isEmpty {
            throw ValidationError("--backend command needs --command, e.g. --command 'piper --model voice.onnx --output_file {wav}'.")
        }
        if backend == .wyoming {
            do { _ = try WyomingEndpoint(parsing: wyoming) } catch { throw ValidationError("--wyoming: \(error)") }
        }
    }

    var settings: TextToSpeechBackend {
        switch backend {
        case .espeak: .espeak(EspeakConfiguration(voice: voice, rate: rate, pitch: pitch))
        case .command: .command(arguments: CommandLineWords.split(command ?? ""), timeout: .seconds(timeout))
        case .wyoming: .wyoming(WyomingServiceConfiguration(endpoint: try! WyomingEndpoint(parsing: wyoming), name: wyomingVoice, timeout: .seconds(timeout)))
        case .none: .none
        }
    }
}
