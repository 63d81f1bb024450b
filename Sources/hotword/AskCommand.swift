import ArgumentParser
import Foundation
import HotwordAssistant
import HotwordAudio
import HotwordHistory
import HotwordSUSI
import Logging

/// `hotword ask "question"`: one question to SUSI.AI, answer printed.
struct AskCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ask",
        abstract: "Ask SUSI.AI a question and print the answer.",
        discussion: """
            Prints SUSI's answers as 'SUSI: …' lines, tables as aligned columns, news items and links;             --speak (or [tts] speak_always) also says them (espeak-ng, with [tts.espeak]'s voice, rate             and pitch). The exchange is recorded in the history (`hotword history`, `hotword feedback`)             unless [history] enabled = false.
            """)

    @Argument(help: "The question, e.g. \"what is the weather in berlin\".")
    var query: String

    @Flag(help: "Print SUSI's JSON reply as received instead of the answer.")
    var json = false

    @Flag(help: "Also report actions this command cannot perform, and log requests to standard error.")
    var verbose = false

    @Flag(help: "Also speak the answer.")
    var speak = false

    @Option(help: "With --speak: the espeak-ng voice (en-us, de, en-us+f3; see `espeak-ng --voices`; default: [tts.espeak] voice).")
    var voice: String?

    @Option(help: "With --speak: the ALSA playback device; `hotword devices` lists them.")
    var playbackDevice = "default"

    @OptionGroup var susi: SUSIOptions

    func validate() throws {
        guard !query.trimmingCharacters(in: .whitespaces).isEmpty else { throw ValidationError("The question is empty.") }
        try TextToSpeechOptions.checkVoice(voice)
    }

    func run() async throws {
        let settings = try susi.settings()
        var logger = Logger(label: "hotword.susi") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = verbose ? .debug : .error
        let history = Self.history(settings.history)
        let asked = Date()
        let reply: SUSIReply
        do {
            reply = try await SUSIClient(configuration: settings.susiClientConfiguration, logger: logger).ask(query)
        } catch {
            history?.record(Exchange(time: asked, source: .text, question: query, answer: "", origin: .error,
                                     error: error.description, timings: Exchange.Timings(asking: Self.milliseconds(since: asked))))
            throw CommandFailure("\(error)")
        }
        let asking = Self.milliseconds(since: asked)
        var spoken: [String] = []
        var shown: [String] = []
        for step in SUSIRenderer(verbose: verbose).steps(for: reply) {
            show(step, prefix: "", spoken: &spoken, shown: &shown)
        }
        if json { print(reply.json) } else { print(shown.joined(separator: "\n")) }
        history?.record(Exchange(time: asked, source: .text, question: query, answer: shown.joined(separator: "\n"),
                                 actions: reply.actionsJSON, skill: reply.skills.first, origin: .susi,
                                 timings: Exchange.Timings(asking: asking)))
        if !json, speak || settings.tts.speakAlways {
            var espeak = settings.tts.espeak
            if let voice { espeak.voice = voice }
            try await say(spoken, espeak)
        }
    }

    /// Where the exchange is recorded; nil when the history is off or cannot be opened (said on
    /// standard error: the answer matters more).
    private static func history(_ settings: HistorySettings) -> HistoryRecording? {
        guard settings.enabled else { return nil }
        do {
            return try HistoryAccess.open(settings, creating: true).map(HistoryRecording.init)
        } catch {
            FileHandle.standardError.write(Data("(not recorded: \(error))\n".utf8))
            return nil
        }
    }

    private static func milliseconds(since date: Date) -> Int {
        Int(Date().timeIntervalSince(date) * 1000)
    }

    /// Says `texts` one after the other through `playbackDevice`.
    private func say(_ texts: [String], _ espeak: EspeakConfiguration) async throws {
        do {
            let synthesizer = try EspeakSynthesizer(espeak)
            let speaker = try PlaybackDevice(PlaybackConfiguration(device: playbackDevice))
            defer { speaker.close() }
            for text in texts {
                let audio = try await synthesizer.synthesize(text)
                try await BlockingWork.run { () throws(AudioDeviceError) in
                    if try speaker.play(audio.samples, sampleRate: audio.sampleRate) == .completed { speaker.drain() }
                }
            }
        } catch let error as AudioDeviceError {
            throw CommandFailure.device(error, choose: "--playback-device NAME")
        } catch {
            throw CommandFailure("\(error)")
        }
    }

    /// Adds what `step` shows to `shown` and what it says to `spoken`.
    private func show(_ step: SUSIStep, prefix: String, spoken: inout [String], shown: inout [String]) {
        switch step {
        case .print(let text):
            shown.append(prefix + text)
        case .speak(let text, _):
            // Its text came in the `print` step before it; a planned answer is only shown.
            if prefix.isEmpty { spoken.append(text) }
        case .planned(let delay, let steps):
            // A one-shot command cannot wait for a reminder: show it now, marked with its delay.
            for planned in steps { show(planned, prefix: prefix + "[in \(SUSIStep.format(delay))] ", spoken: &spoken, shown: &shown) }
        case .unknown(let text):
            note(text)
        case .setVolume, .stopSpeaking, .playback, .setTimer, .resetTimer:
            if verbose { note("not done by `hotword ask`: \(step)") }
        }
    }

    private func note(_ text: String) {
        FileHandle.standardError.write(Data("(\(text))\n".utf8))
    }
}

/// The history store of one `ask`: a failure to record is said on standard error, not fatal.
private struct HistoryRecording {
    let store: HistoryStore

    func record(_ exchange: Exchange) {
        do { try store.record(exchange) } catch { FileHandle.standardError.write(Data("(not recorded: \(error))\n".utf8)) }
    }
}
