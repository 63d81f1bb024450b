import Foundation

/// One thing to do with a SUSI reply, made by `SUSIRenderer`. Whoever presents replies (the
/// `ask` command, the assistant's run loop) performs the steps in order. Text meant for both eye
/// and ear comes as a `print` followed by a `speak`, so a silent front end just skips `speak`.
public enum SUSIStep: Sendable, Equatable, CustomStringConvertible {
    /// Show this text to the user: one or more complete lines (no trailing newline), ready to
    /// write as they are — answers start with `SUSI: `, tables come as aligned columns.
    case print(String)
    /// Say this aloud. `language` is the ISO 639-1 code SUSI gave for it, if any (choose a voice).
    case speak(String, language: String?)
    /// Perform `steps` once `delay` has passed (a planned answer, such as a reminder),
    /// without holding up the steps after this one.
    case planned(delay: Duration, steps: [SUSIStep])
    /// Set the output volume to this percentage (0–100).
    case setVolume(percent: Int)
    /// Stop speaking (and any playback) now.
    case stopSpeaking
    /// Control media playback; never `.stop`, which arrives as `stopSpeaking`.
    case playback(SUSIPlaybackControl)
    /// Set the timer (alarm) to go off at this moment.
    case setTimer(Date)
    /// Clear the timer.
    case resetTimer
    /// An action that cannot be performed (unknown type, missing field), described for the user.
    /// Only made in verbose mode; show it as a note.
    case unknown(String)

    public var description: String {
        switch self {
        case .print(let text): "print \"\(text)\""
        case .speak(let text, let language): "speak \"\(text)\"" + (language.map { " (\($0))" } ?? "")
        case .planned(let delay, let steps): "after \(SUSIStep.format(delay)): " + steps.map(\.description).joined(separator: "; ")
        case .setVolume(let percent): "set volume to \(percent)%"
        case .stopSpeaking: "stop speaking"
        case .playback(let control): "\(control.rawValue) playback"
        case .setTimer(let date): "set timer for \(date.formatted(Date.ISO8601FormatStyle()))"
        case .resetTimer: "reset timer"
        case .unknown(let note): note
        }
    }

    /// `1 h 5 min`, `5 min`, `30 s`, `1.5 s`: how long until a planned answer.
    public static func format(_ duration: Duration) -> String {
        let seconds = duration / .seconds(1)
        guard seconds >= 60 else { return "\(HTTPError.format(seconds)) s" }
        let minutes = Int((seconds / 60).rounded())
        return minutes >= 60 ? "\(minutes / 60) h" + (minutes % 60 == 0 ? "" : " \(minutes % 60) min") : "\(minutes) min"
    }
}
