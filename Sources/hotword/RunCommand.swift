import ArgumentParser
import Foundation
import HotwordAssistant
import HotwordAudio
import HotwordModels
import Logging

/// `hotword run`: the voice assistant.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the voice assistant: wake word, question, SUSI's answer, spoken.",
        discussion: """
            Listens for the wake word ("hey susi"), plays a cue, records the question until you \
            stop speaking, transcribes it, asks SUSI.AI and prints and speaks the answer \
            ('You: …' and 'SUSI: …' lines; --json prints one JSON event per line instead). \
            Saying the wake word while it answers stops the answer and listens again. \
            "hey susi" was trained from synthetic voices and misses some people: if it does not \
            wake for you, try --sensitivity hey_susi=0.8, --model alexa or --model computer \
            (words trained on people saying them), or a personal model made with \
            `hotword enroll --keyword "hey susi"`.

            "hey susi, what can you do" is answered here with example questions from SUSI's skill \
            list; "hey susi, thank you" or "… that was wrong" right after an answer rates it \
            ([susi] help_phrases, positive_phrases, negative_phrases). Every exchange is kept in \
            the history (`hotword history`), and reminders and the timer survive a restart.

            Settings come from /etc/hotword/hotword.toml, then $XDG_CONFIG_HOME/hotword/hotword.toml \
            (~/.config/hotword/hotword.toml), or only from --config FILE; options given here win. \
            Every key is explained in hotword.example.toml. Ctrl-C (or SIGTERM) stops; SIGHUP \
            reloads the files and models without stopping to listen (on a problem the previous \
            configuration stays in use and the problem is logged).

            A microphone that is not there yet (unplugged, its sound server still starting) is \
            waited for. Under systemd (Type=notify) it reports when it is listening, and pings the \
            watchdog from its audio loop. Exit status: 0 after a stop, 64 for a wrong command line, \
            78 when the configuration, a device name or a model is wrong, 1 on other failures (a \
            busy loudspeaker, say).
            """)

    @Option(help: ArgumentHelp("Read settings from this file only (instead of the system and user files).", valueName: "FILE"))
    var config: String?

    @Option(help: "The ALSA capture device; `hotword devices` lists them.")
    var device: String?

    @Option(help: "The ALSA playback device for the cue and spoken answers.")
    var playbackDevice: String?

    @OptionGroup var detector: DetectorOptions

    @OptionGroup var phraseCheck: PhraseCheckSwitch

    @Option(help: "The SUSI server, e.g. http://localhost:4000.")
    var server: String?

    @Option(help: "The language of questions and answers (ISO 639-1).")
    var language: String?

    @Option(help: ArgumentHelp("The speech-to-text engine (stt.backend; `hotword transcribe --help` describes each).", valueName: "BACKEND"))
    var stt: SpeechToTextSettings.Backend?

    @Option(help: ArgumentHelp("The text-to-speech engine (tts.backend; `hotword say --help` describes each; none: answers are only printed).", valueName: "BACKEND"))
    var tts: TextToSpeechSettings.Backend?

    @Flag(help: "Print events as JSON lines (wake, utterance, transcript, answer, error, state).")
    var json = false

    @Flag(help: "Play no cue after the wake word.")
    var noCue = false

    @Flag(help: "Log details (device formats, thresholds, requests) to standard error.")
    var verbose = false

    func validate() throws {
        try SUSIOptions.checkServer(server)
    }

    func run() async throws {
        bootstrapLogging(verbose: verbose, quiet: .info)
        let logger = Logger(label: "hotword.run")
        let signals = RunSignals()
        let configuration: AssistantConfiguration
        do {
            configuration = try await settings(logger: logger)
        } catch let error as ValidationError {
            throw error
        } catch {
            throw CommandFailure("\(error)", status: .configuration)
        }
        // Said, not fatal: the assistant still listens and answers in print (as when an engine fails).
        for setting in (try? configuration.unusableSpeechSettings()) ?? [] { logger.warning("\(setting)") }
        let notifier: ServiceNotifier?
        do {
            notifier = try ServiceNotifier.fromEnvironment()
        } catch {
            logger.error("\(error): the service manager is not told how hotword is doing")
            notifier = nil
        }
        let printer = EventPrinter(json: json)
        let assistant: Assistant
        do {
            assistant = try await Assistant(configuration: configuration, notifier: notifier) { printer.show($0) }
        } catch .capture(let error) {
            // A microphone ALSA knows is waited for: what is left is the configuration's (a name
            // ALSA does not know, a device offering nothing usable).
            throw CommandFailure(error.suggestsAnotherDevice
                ? "\(error) and choose one with --device NAME or capture_device in [audio] of hotword.toml" : error.description,
                status: .configuration)
        } catch .playback(let error) {
            throw CommandFailure.device(error, choose: "--playback-device NAME or playback_device in [audio] of hotword.toml")
        } catch {
            throw CommandFailure(error.description, status: .configuration)
        }
        guard !signals.isStopRequested else { return }
        signals.onStop { assistant.stop() }
        let reloading = Task {
            for await _ in signals.reloads { await reload(assistant, notifier: notifier, logger: logger) }
        }
        defer { reloading.cancel() }
        await assistant.run()
    }

    /// SIGHUP: the files (and the options given here) again; on any problem the running
    /// configuration stays and the problem is logged with its file and line.
    private func reload(_ assistant: Assistant, notifier: ServiceNotifier?, logger: Logger) async {
        logger.info("SIGHUP: reloading the configuration and the models")
        notifier?.reloading(status: "reloading the configuration")
        do {
            try await assistant.reload(try await settings(logger: logger))
            logger.info("configuration reloaded")
            notifier?.ready(status: "listening (configuration reloaded)")
        } catch {
            logger.error("reload failed, the previous configuration stays in use: \(error)")
            notifier?.ready(status: "listening (reload failed, the previous configuration stays in use)")
        }
    }

    /// The configuration files (with the account's settings from SUSI under them, pulled anew
    /// with `[susi] sync_settings`), then the options given on the command line.
    private func settings(logger: Logger) async throws -> AssistantConfiguration {
        var configuration = try await SettingsFiles.loadSyncing(only: config, logger: logger)
        if let device { configuration.audio.captureDevice = device }
        if let playbackDevice { configuration.audio.playbackDevice = playbackDevice }
        if !detector.givenModels.isEmpty { configuration.wake.models = detector.givenModels }
        if let gain = detector.gain { configuration.audio.gain = gain }
        if !detector.sensitivity.isEmpty {
            // For the keywords of the models that will listen: these override the files.
            let models = try configuration.wake.models.map(DetectorOptions.loadModel)
            try detector.applySensitivity(to: &configuration, keywords: models.flatMap(\.keywords))
        }
        phraseCheck.apply(to: &configuration)
        if let server { configuration.susi.server = URL(string: server)! }
        if let language { configuration.susi.language = language }
        if let stt { configuration.stt.backend = stt }
        if let tts { configuration.tts.backend = tts }
        if noCue { configuration.cue.enabled = false }
        return configuration
    }
}

/// Writes events to standard output as they come: JSON lines, or the `You:`/`SUSI:` text.
private struct EventPrinter: Sendable {
    let json: Bool

    func show(_ event: AssistantEvent) {
        guard let line = json ? event.json : event.text else { return }
        // Unbuffered, so another program reading the pipe sees each line at once.
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
