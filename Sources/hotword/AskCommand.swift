import ArgumentParser
import Foundation
import HotwordAssistant
import Logging

/// `hotword ask "question"`: one question to SUSI.AI, answer printed.
struct AskCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ask",
        abstract: "Ask SUSI.AI a question and print the answer.",
        discussion: "Prints SUSI's answers as 'SUSI: …' lines, tables as aligned columns, news items and links.")

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
        for step in SUSIRenderer(verbose: verbose).steps(for: reply) {
            show(step, prefix: "")
        }
    }

    private func show(_ step: SUSIStep, prefix: String) {
        switch step {
        case .print(let text):
            print(prefix + text)
        case .speak:
            break  // Its text came in the `print` step before it; speaking it is for a text-to-speech option.
        case .planned(let delay, let steps):
            // A one-shot command cannot wait for a reminder: show it now, marked with its delay.
            for planned in steps { show(planned, prefix: prefix + "[in \(SUSIStep.format(delay))] ") }
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
