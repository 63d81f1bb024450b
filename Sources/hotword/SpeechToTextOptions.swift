import ArgumentParser
import Foundation
import HotwordAssistant
import HotwordWyoming

/// The `[stt]` backends, as `transcribe --backend` and `run --stt` take them.
extension SpeechToTextSettings.Backend: ExpressibleByArgument {}

/// Chooses and configures the speech-to-text backend from the command line.
struct SpeechToTextOptions: ParsableArguments {
    @Option(help: "The speech-to-text engine: pocketsphinx (embedded), http (an OpenAI-compatible server), command (a program) or wyoming (a Wyoming server).")
    var backend: SpeechToTextSettings.Backend = .pocketsphinx

    @Option(help: ArgumentHelp("pocketsphinx: the acoustic model folder.", valueName: "FOLDER"))
    var hmm: String = PocketSphinxConfiguration().acousticModel

    @Option(help: ArgumentHelp("pocketsphinx: the language model.", valueName: "FILE"))
    var lm: String = PocketSphinxConfiguration().languageModel

    @Option(help: ArgumentHelp("pocketsphinx: the pronunciation dictionary.", valueName: "FILE"))
    var dict: String = PocketSphinxConfiguration().dictionary

    @Option(help: ArgumentHelp("pocketsphinx: write its own log here (silenced otherwise).", valueName: "FILE"))
    var pocketsphinxLog: String?

    @Option(help: "http: the transcription endpoint.")
    var url: String = "http://127.0.0.1:8080/v1/audio/transcriptions"

    @Option(help: ArgumentHelp("http: the model name sent to the server.", valueName: "NAME"))
    var httpModel: String = "whisper-1"

    @Option(help: ArgumentHelp("wyoming: the server, e.g. tcp://127.0.0.1:10300 (wyoming-faster-whisper).", valueName: "URI"))
    var wyoming: String = "tcp://127.0.0.1:10300"

    @Option(help: ArgumentHelp("http and wyoming: the spoken language (ISO 639-1); the server detects it otherwise.", valueName: "CODE"))
    var language: String?

    @Option(help: ArgumentHelp("http: sent as 'Authorization: Bearer KEY'.", valueName: "KEY"))
    var apiKey: String?

    @Option(help: ArgumentHelp(
        "command: the program and its arguments, separated by spaces (no shell); {wav} is replaced by the utterance's WAV file.",
        valueName: "COMMAND"))
    var command: String?

    @Option(help: ArgumentHelp("http, command and wyoming: seconds one utterance may take.", valueName: "SECONDS"))
    var timeout: Double = 60

    func validate() throws {
        guard timeout > 0 else { throw ValidationError("--timeout must be positive, not \(timeout).") }
        switch backend {
        case .pocketsphinx:
            break
        case .http:
            guard let url = URL(string: url), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
                throw ValidationError("--url must be an http or https URL, not '\(url)'.")
            }
        case .command:
            guard let command, !CommandLineWords.split(command).isEmpty else {
                throw ValidationError("--backend command needs --command, e.g. --command 'whisper-cli -m model.bin -nt -f {wav}'.")
            }
        case .wyoming:
            do { _ = try WyomingEndpoint(parsing: wyoming) } catch { throw ValidationError("--wyoming: \(error)") }
        }
    }

    var settings: SpeechToTextBackend {
        switch backend {
        case .pocketsphinx:
            .pocketsphinx(PocketSphinxConfiguration(acousticModel: hmm, languageModel: lm, dictionary: dict,
                                                    logFile: pocketsphinxLog))
        case .http:
            .http(HTTPRecognizerConfiguration(url: URL(string: url)!, model: httpModel, language: language,
                                              apiKey: apiKey, timeout: .seconds(timeout)))
        case .command:
            .command(arguments: CommandLineWords.split(command ?? ""), timeout: .seconds(timeout))
        case .wyoming:
            .wyoming(WyomingServiceConfiguration(endpoint: try! WyomingEndpoint(parsing: wyoming), language: language, timeout: .seconds(timeout)))
        }
    }
}

/// Splits a command given as one option value into its arguments.
enum CommandLineWords {
    /// Arguments are separated by whitespace; there is no quoting (wrap a command whose
    /// arguments contain spaces in a script).
    static func split(_ command: String) -> [String] {
        command.split(whereSeparator: \.isWhitespace).map(String.init)
    }
}
