import Foundation
import HotwordCore
import HotwordJSON
import HotwordSUSI

/// What the assistant is doing. Listening goes on in every state except `recording` (a wake
/// word while transcribing, asking or speaking starts over: barge-in).
public enum AssistantState: String, Sendable, CaseIterable {
    /// Waiting for a wake word.
    case listening
    /// Recording the question after a wake word.
    case recording
    /// Turning the question into text.
    case transcribing
    /// Waiting for SUSI's answer.
    case asking
    /// Presenting the answer (printing, speaking).
    case speaking
}

/// Which part of answering a question failed.
public enum AssistantStage: String, Sendable {
    case transcribe, ask, speak, hook, audio, history
}

/// Something that happened, for the user or another program (`hotword run --json` prints one
/// JSON object per line; text mode prints `You: …` / `SUSI: …`).
public enum AssistantEvent: Sendable, Equatable {
    case state(AssistantState)
    /// A wake word; `time` is seconds since listening began, at the keyword's end.
    case wake(keyword: String, score: Float, time: Double)
    /// A wake word cut short what the assistant was doing (`interrupted`: the state it left).
    case bargeIn(interrupted: AssistantState)
    /// The question has started (`time` as for `wake`).
    case utteranceStart(time: Double)
    /// The question is complete: its length including the pre-roll, and why it ended.
    case utteranceEnd(duration: Double, reason: Utterance.End)
    /// Nobody spoke after the wake word.
    case noSpeech
    /// The question as text ("" when nothing was recognised), which engine heard it, and the
    /// seconds from the end of its recording to the text (when SUSI is asked): the latency
    /// speech to text adds.
    case transcript(String, engine: SpeechToTextSettings.Backend, seconds: Double)
    /// The configured speech-to-text engine cannot be used (`message`: why); `fallback` hears
    /// the questions until it answers again. Once per outage.
    case speechToTextLost(engine: SpeechToTextSettings.Backend, fallback: SpeechToTextSettings.Backend, message: String)
    /// The configured speech-to-text engine answers again, after `speechToTextLost`.
    case speechToTextRestored(engine: SpeechToTextSettings.Backend)
    /// Text to show: SUSI's answer (`SUSI: …`), a table, a list, or a polite message.
    case answer(String)
    /// Something failed; the assistant carries on listening. `message` is the technical reason.
    case error(stage: AssistantStage, message: String)

    /// The event as one line of JSON, e.g. `{"event":"wake","keyword":"hey susi","score":0.97,"time":3.08}`.
    public var json: String {
        let fields: [(String, JSONScalar)]
        switch self {
        case .state(let state):
            fields = [("event", .string("state")), ("state", .string(state.rawValue))]
        case .wake(let keyword, let score, let time):
            fields = [("event", .string("wake")), ("keyword", .string(keyword)), ("score", .number(Self.rounded(Double(score)))), ("time", .number(Self.rounded(time)))]
        case .bargeIn(let interrupted):
            fields = [("event", .string("barge_in")), ("interrupted", .string(interrupted.rawValue))]
        case .utteranceStart(let time):
            fields = [("event", .string("utterance_start")), ("time", .number(Self.rounded(time)))]
        case .utteranceEnd(let duration, let reason):
            fields = [("event", .string("utterance_end")), ("duration", .number(Self.rounded(duration))), ("reason", .string(reason.rawValue))]
        case .noSpeech:
            fields = [("event", .string("no_speech"))]
        case .transcript(let text, let engine, let seconds):
            fields = [("event", .string("transcript")), ("text", .string(text)), ("stt_engine", .string(engine.rawValue)),
                      ("latency_s", .number(Self.rounded(seconds)))]
        case .speechToTextLost(let engine, let fallback, let message):
            fields = [("event", .string("stt_lost")), ("stt_engine", .string(engine.rawValue)), ("fallback", .string(fallback.rawValue)),
                      ("message", .string(message))]
        case .speechToTextRestored(let engine):
            fields = [("event", .string("stt_restored")), ("stt_engine", .string(engine.rawValue))]
        case .answer(let text):
            fields = [("event", .string("answer")), ("text", .string(SUSIRenderer.withoutSpeaker(text)))]
        case .error(let stage, let message):
            fields = [("event", .string("error")), ("stage", .string(stage.rawValue)), ("message", .string(message))]
        }
        return "{" + fields.map { "\(JSONText.quoted($0.0)):\(Self.encode($0.1))" }.joined(separator: ",") + "}"
    }

    /// The event as the text mode shows it on standard output, or nil for events it leaves to the log.
    public var text: String? {
        switch self {
        case .transcript(let text, _, _): "You: \(text.isEmpty ? "…" : text)"
        case .speechToTextLost(let engine, let fallback, let message): "(\(message); \(fallback.rawValue) hears the questions until \(engine.rawValue) answers again)"
        case .speechToTextRestored(let engine): "(speech to text: \(engine.rawValue) answers again)"
        case .answer(let text): text
        default: nil
        }
    }

    private static func rounded(_ value: Double) -> Double {
        (value * 1000).rounded() / 1000
    }

    private enum JSONScalar {
        case string(String)
        case number(Double)
    }

    private static func encode(_ value: JSONScalar) -> String {
        switch value {
        case .string(let text): JSONText.quoted(text)
        case .number(let number): number.isFinite ? "\(number)" : "null"
        }
    }
}
