import ArgumentParser
import Foundation
import HotwordAssistant
import HotwordHistory
import HotwordSUSI

/// `hotword history [show]`: exchanges from the history database, oldest first.
struct HistoryShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show the last exchanges (the default of `hotword history`).")

    @Option(help: "Show the newest N exchanges.")
    var last = 20

    @Option(help: ArgumentHelp("Only exchanges whose question or answer contains TEXT (any case).", valueName: "TEXT"))
    var search: String?

    @Option(help: ArgumentHelp("Only exchanges since DATE: 2026-11-25 (local midnight) or 2026-11-25T14:30:00Z.", valueName: "DATE"))
    var since: String?

    @Flag(help: "Print JSON (one array of exchanges, every field) instead of text.")
    var json = false

    @Option(help: "Show what this SUSI server remembers instead, as `hotword history server --server URL` does.")
    var server: String?

    @Option(help: ArgumentHelp("Read settings from this file only (instead of the system and user files).", valueName: "FILE"))
    var config: String?

    func validate() throws {
        try SUSIOptions.checkServer(server)
        guard last > 0 else { throw ValidationError("--last must be at least 1, not \(last).") }
        if let since, Self.date(since) == nil {
            throw ValidationError("--since must be a date (2026-11-25) or a time (2026-11-25T14:30:00Z), not '\(since)'.")
        }
    }

    func run() async throws {
        var settings = try SettingsFiles.load(only: config)
        if let server {
            settings.susi.server = URL(string: server)!
            try await HistoryServerCommand.show(SUSIClient(configuration: settings.susi), tokenFile: settings.susiLogin.tokenFile, json: json)
            return
        }
        guard let store = try HistoryAccess.open(settings.history, creating: false) else {
            print(json ? "[]" : "No exchanges recorded (\(settings.history.file.path)).")
            return
        }
        let exchanges: [Exchange]
        do {
            exchanges = try store.exchanges(HistoryQuery(last: last, search: search, since: since.flatMap(Self.date)))
        } catch {
            throw CommandFailure("\(error)")
        }
        if json, exchanges.isEmpty {
            print("[]")
        } else if json {
            let data = try JSONSerialization.data(withJSONObject: exchanges.map(Self.jsonObject),
                                                  options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
            print(String(decoding: data, as: UTF8.self))
        } else if exchanges.isEmpty {
            print(search == nil && since == nil ? "No exchanges recorded (\(store.file.path))." : "No exchanges match.")
        } else {
            print(exchanges.map(Self.text).joined(separator: "\n\n"))
        }
    }

    /// An exchange as `--json` prints it (docs/usage.md, "History"): snake_case keys, every one present
    /// (null when it does not apply), the time in ISO 8601, the answer without the `SUSI: ` of
    /// the text, the actions as SUSI sent them (an array).
    static func jsonObject(_ exchange: Exchange) -> [String: Any] {
        func orNull(_ value: Any?) -> Any { value ?? NSNull() }
        let actions = (try? JSONSerialization.jsonObject(with: Data(exchange.actions.utf8))) ?? []
        return [
            "id": orNull(exchange.id), "time": isoTime(exchange.time), "source": exchange.source.rawValue,
            "wake_word": orNull(exchange.wakeWord), "wake_score": orNull(exchange.wakeScore),
            "question": exchange.question,
            "answer": exchange.answer.split(separator: "\n", omittingEmptySubsequences: false)
                .map { SUSIRenderer.withoutSpeaker(String($0)) }.joined(separator: "\n"),
            "actions": actions, "skill": orNull(exchange.skill), "origin": exchange.origin.rawValue,
            "error": orNull(exchange.error), "rating": orNull(exchange.rating?.rawValue),
            "timings_ms": ["recording": orNull(exchange.timings.recording), "transcribing": orNull(exchange.timings.transcribing),
                           "asking": orNull(exchange.timings.asking), "speaking": orNull(exchange.timings.speaking)],
        ]
    }

    static func text(_ exchange: Exchange) -> String {
        var heading = "#\(exchange.id ?? 0) \(isoTime(exchange.time))"
        heading += exchange.wakeWord.map { " — \($0)" + (exchange.wakeScore.map { String(format: " %.2f", $0) } ?? "") } ?? " — typed"
        if let rating = exchange.rating { heading += " — rated \(rating.rawValue)" }
        var lines = [heading, "You: \(exchange.question)"] + exchange.answer.split(separator: "\n").map(String.init)
        if let error = exchange.error { lines.append("(\(error))") }
        return lines.joined(separator: "\n")
    }

    /// `2026-11-25` (local midnight) or an ISO 8601 time.
    static func date(_ text: String) -> Date? {
        if let time = try? Date.ISO8601FormatStyle().parse(text) { return time }
        let parts = text.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3, text.count == 10 else { return nil }
        return Calendar.current.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2]))
    }
}
