import ArgumentParser
import Foundation
import HotwordAssistant
import HotwordAudio
import HotwordSUSI
import Logging

/// `hotword ask "question"`: one question to SUSI.AI, answer printed.
struct AskCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ask",
        abstract: "Ask SUSI.AI a question and print the answer.",
        discussion: "Prints SUSI's answers as 'SUSI: …' lines, tables as aligned columns, news items and links; --speak also says them (espeak-ng).")

    @Argument(help: "The question, e.g. \"what is the weather in berlin\".")
    var query: String

    @Option(help: "The SUSI server.")
    var server: String = SUSIConfiguration.defaultServer.absoluteString

    @Option(help: "The language of the question and answer (ISO 639-1).")
    var language: String = "en"

    @Flag(help: "Print SUSI's JSON reply as received instead of the answer.")
    var json = false

    @Flag(help: "Also report actions this command cannot perform, and log requests to standard error.")
    var verbose = false

    @Flag(help: "Also speak the answer.")
    var speak = false

    @Option(help: "With --speak: the espeak-ng voice (en-us, de, en-us+f3; see `espeak-ng --voices`).")
    var voice = EspeakConfiguration().voice

    @Option(help: "With --speak: the ALSA playback device; `hotword devices` lists them.")
    var playbackDevice = "default"

    func validate() throws {
        guard !query.trimmingCharacters(in: .whitespaces).isEmpty else { throw ValidationError("The question is empty.") }
        guard let url = URL(string: server), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
            throw ValidationError("--server must be an http or https URL, not '\(server)'.")
        }
    }

    func run() async throws {
        var logger = Logger(label: "hotword.susi") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = verbose ? .debug : .error
        let configuration = SUSIConfiguration(clientVersion: HotwordVersion.current, server: URL(string: server)!,
                                              language: language)
        let reply: SUSIReply
        do {
            reply = try await SUSIClient(configuration: configuration, logger: logger).ask(query)
        } catch {
            FileHandle.standardError.write(Data("hotword ask: \(error)\n".utf8))
            throw ExitCode.failure
        }
        if json {
            print(reply.json)
            return
        }
        var spoken: [String] = []
        for step in SUSIRenderer(verbose: verbose).steps(for: reply) {
            show(step, prefix: "", spoken: &spoken)
        }
        if speak { try await say(spoken) }
    }

    /// Says `texts` one after the other through `playbackDevice`.
    private func say(_ texts: [String]) async throws {
        do {
            let synthesizer = try EspeakSynthesizer(EspeakConfiguration(voice: voice))
            let speaker = try PlaybackDevice(PlaybackConfiguration(device: playbackDevice))
            defer { speaker.close() }
            for text in texts {
                let audio = try await synthesizer.synthesize(text)
                try await BlockingWork.run { () throws(AudioDeviceError) in
                    if try speaker.play(audio.samples, sampleRate: audio.sampleRate) == .completed { speaker.drain() }
                }
            }
        } catch let error as AudioDeviceError where error.suggestsAnotherDevice {
            throw CommandFailure("\(error) and choose one with --playback-device NAME")
        } catch {
            throw CommandFailure("\(error)")
        }
    }

    private func show(_ step: SUSIStep, prefix: String, spoken: inout [String]) {
        switch step {
        case .print(let text):
            print(prefix + text)
        case .speak(let text, _):
            // Its text came in the `print` step before it; a planned answer is only shown.
            if prefix.isEmpty { spoken.append(text) }
        case .planned(let delay, let steps):
            // A one-shot command cannot wait for a reminder: show it now, marked with its delay.
            for planned in steps { show(planned, prefix: prefix + "[in \(SUSIStep.format(delay))] ", spoken: &spoken) }
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
