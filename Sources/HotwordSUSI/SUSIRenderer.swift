import Foundation

/// Turns a SUSI reply into the steps that present it (see `SUSIStep`). Pure: the same reply
/// always gives the same steps.
///
/// | action | steps |
/// |---|---|
/// | answer | print `SUSI: text`, speak text; planned answers inside `planned(delay:)` |
/// | table | print the whole table in aligned columns; speak its first rows |
/// | rss | print every item (title, description, link); speak the first titles |
/// | websearch | print the query; speak that the web cannot be searched by voice |
/// | anchor | print text and link; speak the text |
/// | map | print the coordinates and an OpenStreetMap link |
/// | audio_play, video_play | print the link; speak that it cannot be played here |
/// | audio_volume, timer_set, timer_reset | `setVolume`, `setTimer`, `resetTimer` |
/// | stop / pause, resume, restart, next, previous, shuffle | `stopSpeaking` / `playback` |
/// | piechart, image_show | print |
/// | unknown, incomplete | `unknown`, in verbose mode only |
///
/// A reply that yields nothing to print, say or do gets a polite "no answer" instead.
public struct SUSIRenderer: Sendable {
    /// Also describe actions that cannot be performed.
    public var verbose: Bool
    /// How many table rows or news titles to speak.
    public var spokenItems: Int

    /// What starts a printed answer line: `SUSI: It is sunny.`
    public static let speaker = "SUSI: "

    /// `line` without the `SUSI: ` that starts it as printed: for programs, which know who spoke.
    public static func withoutSpeaker(_ line: String) -> String {
        line.hasPrefix(speaker) ? String(line.dropFirst(speaker.count)) : line
    }

    public init(verbose: Bool = false, spokenItems: Int = 3) {
        self.verbose = verbose
        self.spokenItems = max(1, spokenItems)
    }

    /// The most characters one printed step shows (a whole table or feed included): SUSI's
    /// answers are a few hundred; a server could send megabytes.
    public static let maximumShownCharacters = 20_000
    /// The most characters one step says aloud (about two minutes of speech).
    public static let maximumSpokenCharacters = 2_000
    /// The most rows of a table, or items of a feed, shown.
    public static let maximumRows = 100

    public func steps(for reply: SUSIReply) -> [SUSIStep] {
        let rendered = reply.actions.flatMap { steps(for: $0, in: reply) }.map(Self.presentable)
        guard rendered.allSatisfy({ if case .unknown = $0 { true } else { false } }) else { return rendered }
        let message = SUSIError.noAnswer(query: reply.query).spokenMessage
        return rendered + [.print("SUSI: \(message)"), .speak(message, language: "en")]
    }

    private func steps(for action: SUSIAction, in reply: SUSIReply) -> [SUSIStep] {
        switch action {
        case .answer(let answer):
            let text = answer.expression.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !text.isEmpty else { return [] }
            let said: [SUSIStep] = [.print("SUSI: \(text)"), .speak(text, language: answer.language)]
            guard let delay = planDelay(answer, in: reply), delay > .zero else { return said }
            return [.planned(delay: delay, steps: said)]
        case .table(let table):
            return tableSteps(table, rows: reply.data.prefix(table.count ?? reply.data.count))
        case .rss(let feed):
            return feedSteps(feed, items: reply.data.prefix(feed.count ?? reply.data.count))
        case .webSearch(let query, _):
            return [.print("SUSI: search the web for \"\(query)\""),
                    .speak("I can't search the web by voice.", language: "en")]
        case .anchor(let link, let text):
            guard text != link else { return [.print("SUSI: \(link)")] }
            return [.print("SUSI: \(text): \(link)"), .speak(text, language: nil)]
        case .map(let latitude, let longitude, let zoom):
            let level = zoom ?? 13
            return [.print("SUSI: map of \(latitude), \(longitude): "
                           + "https://www.openstreetmap.org/?mlat=\(latitude)&mlon=\(longitude)#map=\(level)/\(latitude)/\(longitude)")]
        case .audioPlay(let media):
            return [.print("SUSI: audio (\(media.identifierType)): \(media.link)"),
                    .speak("I can't play audio here.", language: "en")]
        case .videoPlay(let media):
            return [.print("SUSI: video (\(media.identifierType)): \(media.link)"),
                    .speak("I can't show videos here.", language: "en")]
        case .audioVolume(let percent):
            return [.setVolume(percent: percent)]
        case .timerSet(let date):
            return [.setTimer(date)]
        case .timerReset:
            return [.resetTimer]
        case .playback(.stop):
            return [.stopSpeaking]
        case .playback(let control):
            return [.playback(control)]
        case .pieChart(let chart):
            let unit = chart.unit.map { $0 == "%" ? $0 : " \($0)" } ?? ""
            var rows = reply.data.map { [$0[chart.key]?.text ?? "", ($0[chart.value]?.text ?? "") + unit] }
            if let total = chart.total { rows.append(["total", SUSIValue.number(total).text + unit]) }
            return [.print(SUSIRenderer.alignedColumns(rows).joined(separator: "\n"))]
        case .imageShow(let url):
            return [.print("SUSI: image: \(url)")]
        case .unknown(let type):
            return verbose ? [.unknown("SUSI sent an action this client does not know: \"\(type)\"")] : []
        case .incomplete(let type, let field):
            return verbose ? [.unknown("SUSI sent a \"\(type)\" action without \"\(field)\"")] : []
        }
    }

    /// The planned delay, or the plan date relative to when the server answered.
    private func planDelay(_ answer: SUSIAnswer, in reply: SUSIReply) -> Duration? {
        if let delay = answer.planDelay { return delay }
        guard let planDate = answer.planDate, let answered = reply.answerDate ?? reply.queryDate else { return nil }
        return .milliseconds(Int(planDate.timeIntervalSince(answered) * 1000))
    }

    private func tableSteps(_ table: SUSITable, rows: ArraySlice<SUSIValue>) -> [SUSIStep] {
        guard !rows.isEmpty else { return [.print("SUSI: (empty table)")] }
        let cells = rows.prefix(Self.maximumRows).map { row in table.columns.map { row[$0.key]?.text ?? "" } }
        let headers = table.columns.map(\.header)
        let printed = SUSIRenderer.alignedColumns([headers] + cells, ruleBelowFirst: true).joined(separator: "\n")
        let spoken = cells.prefix(spokenItems).map { $0.filter { !$0.isEmpty }.joined(separator: ", ") }
        return [.print(printed + Self.notShown(rows.count, "rows")), .speak(summary(spoken, total: rows.count), language: nil)]
    }

    private func feedSteps(_ feed: SUSIFeed, items: ArraySlice<SUSIValue>) -> [SUSIStep] {
        guard !items.isEmpty else { return [.print("SUSI: (no news)")] }
        var printed: [String] = []
        for (number, item) in items.prefix(Self.maximumRows).enumerated() {
            printed.append("\(number + 1). \(item[feed.titleKey]?.text ?? "")")
            for key in [feed.descriptionKey, feed.linkKey].compactMap({ $0 }) {
                if let text = item[key]?.text, !text.isEmpty { printed.append("   \(text)") }
            }
        }
        let titles = items.prefix(spokenItems).compactMap { $0[feed.titleKey]?.text }
        return [.print(printed.joined(separator: "\n") + Self.notShown(items.count, "items")),
                .speak(summary(titles, total: items.count), language: nil)]
    }

    /// A line saying how many of `count` rows or items were left out, if any.
    private static func notShown(_ count: Int, _ what: String) -> String {
        count > maximumRows ? "\n(\(count - maximumRows) more \(what) not shown)" : ""
    }

    /// `step` fit for a terminal and a speech engine: control characters (escape sequences,
    /// bells, NUL) removed from its text, and the text cut at the limits with a note.
    static func presentable(_ step: SUSIStep) -> SUSIStep {
        switch step {
        case .print(let text): .print(cleaned(text, limit: maximumShownCharacters))
        case .speak(let text, let language): .speak(cleaned(text, limit: maximumSpokenCharacters), language: language)
        case .planned(let delay, let steps): .planned(delay: delay, steps: steps.map(presentable))
        case .unknown(let text): .unknown(cleaned(text, limit: maximumShownCharacters))
        case .setVolume, .stopSpeaking, .playback, .setTimer, .resetTimer: step
        }
    }

    /// `text` without control characters other than line breaks and tabs, at most `limit`
    /// characters long (then ending in a note of how much was cut).
    static func cleaned(_ text: String, limit: Int) -> String {
        var kept = String.UnicodeScalarView()
        var count = 0
        for scalar in text.unicodeScalars where scalar == "\n" || scalar == "\t" || scalar.properties.generalCategory != .control {
            guard count < limit else {
                return String(kept) + " … (cut: longer than \(limit) characters)"
            }
            kept.append(scalar)
            count += 1
        }
        return String(kept)
    }

    /// "A. B. C. And 2 more." — the first items, then how many are only printed.
    private func summary(_ items: [String], total: Int) -> String {
        let said = items.map { $0.hasSuffix(".") ? $0 : $0 + "." }.joined(separator: " ")
        let rest = total - items.count
        return rest > 0 ? said + " And \(rest) more." : said
    }

    /// Rows as lines with every column padded to its widest cell, two spaces apart; with
    /// `ruleBelowFirst` a line of dashes follows the first row.
    static func alignedColumns(_ rows: [[String]], ruleBelowFirst: Bool = false) -> [String] {
        let columnCount = rows.map(\.count).max() ?? 0
        let cleaned = rows.map { row in
            (0..<columnCount).map { $0 < row.count ? row[$0].replacingOccurrences(of: "\n", with: " ") : "" }
        }
        let widths = (0..<columnCount).map { column in cleaned.map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            let padded = zip(cells, widths).map { $0 + String(repeating: " ", count: $1 - $0.count) }
            let text = padded.joined(separator: "  ")
            return String(text.reversed().drop(while: { $0 == " " }).reversed())
        }
        var lines = cleaned.map(line)
        if ruleBelowFirst, !lines.isEmpty {
            lines.insert(line(widths.map { String(repeating: "-", count: $0) }), at: 1)
        }
        return lines
    }
}
