import ArgumentParser
import HotwordAssistant

/// Chooses and configures the text-to-speech backend from the command line.
struct TextToSpeechOptions: ParsableArguments {
    enum Backend: String, ExpressibleByArgument, CaseIterable {
        case espeak, command
    }

    @Option(help: "The text-to-speech engine: espeak (embedded espeak-ng) or command (a program).")
    var backend: Backend = .espeak

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

    @Option(help: ArgumentHelp("command: seconds the program may take.", valueName: "SECONDS"))
    var timeout: Double = 60

    func validate() throws {
        guard timeout > 0 else { throw ValidationError("--timeout must be positive, not \(timeout).") }
        if backend == .command, CommandLineWords.split(command ?? "").isEmpty {
            throw ValidationError("--backend command needs --command, e.g. --command 'piper --model voice.onnx --output_file {wav}'.")
        }
    }

    var settings: TextToSpeechBackend {
        switch backend {
        case .espeak: .espeak(EspeakConfiguration(voice: voice, rate: rate, pitch: pitch))
        case .command: .command(arguments: CommandLineWords.split(command ?? ""), timeout: .seconds(timeout))
        }
    }
}
