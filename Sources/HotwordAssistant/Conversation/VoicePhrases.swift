import Foundation
import HotwordSUSI

/// What a transcript asks for: one of the assistant's own phrases, or a question for SUSI.
enum VoiceIntent: Sendable, Equatable {
    /// "what can you do": example questions, answered here.
    case help
    /// "thank you", "that was wrong": a rating of the last answer.
    case rate(SUSIRating)
    case ask
}

/// Tells the assistant's own phrases (`[susi] help_phrases`, `positive_phrases`,
/// `negative_phrases`) from questions. A phrase matches when the transcript is the same words:
/// case, punctuation and spacing do not count. A rating phrase counts only within
/// `feedbackWindowSeconds` after an answer ended; later it is a question like any other (SUSI
/// has answers to "thank you" too). In the follow-up window right after an answer, heard without
/// the wake word, only a rating phrase counts (`rating(of:)`).
struct VoicePhrases: Sendable {
    private let help: Set<String>
    private let positive: Set<String>
    private let negative: Set<String>
    let feedbackWindowSeconds: Double

    init(_ settings: VoicePhraseSettings) {
        help = Set(settings.help.map(Self.words))
        positive = Set(settings.positive.map(Self.words))
        negative = Set(settings.negative.map(Self.words))
        feedbackWindowSeconds = settings.feedbackWindowSeconds
    }

    /// - Parameter sinceLastAnswer: seconds since the last answer SUSI gave ended; nil when there is none.
    func intent(of transcript: String, sinceLastAnswer: Double?) -> VoiceIntent {
        let words = Self.words(transcript)
        if help.contains(words) { return .help }
        guard let sinceLastAnswer, sinceLastAnswer <= feedbackWindowSeconds, let rating = rating(of: transcript) else { return .ask }
        return .rate(rating)
    }

    /// The rating `transcript` is, if it is a rating phrase; for speech heard without the wake
    /// word in the follow-up window, which lies within the feedback window.
    func rating(of transcript: String) -> SUSIRating? {
        let words = Self.words(transcript)
        if positive.contains(words) { return .positive }
        if negative.contains(words) { return .negative }
        return nil
    }

    /// Lower-case words, apostrophes kept ("that's"), everything else a separator.
    static func words(_ text: String) -> String {
        text.lowercased().split { !($0.isLetter || $0.isNumber || $0 == "'") }.joined(separator: " ")
    }
}
