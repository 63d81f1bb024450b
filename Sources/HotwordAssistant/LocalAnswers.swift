import Foundation
import HotwordHistory
import HotwordSUSI
import Logging

/// An answer SUSI gave, as a rating needs it.
struct AnsweredQuestion: Sendable, Equatable {
    /// The exchange in the history, when it was recorded there.
    var exchangeID: Int64?
    var question: String
    /// What SUSI said (its `answer` expressions).
    var reply: String
    /// `answers[0].skills[0]`.
    var skill: String?
}

/// What the assistant answers itself: example questions for "what can you do" (from the skill
/// list cached for a day, so no round trip to the server), and ratings of SUSI's last answer.
struct LocalAnswers: Sendable {
    let susi: SUSIClient
    let catalog: SUSISkillCatalog
    private let logger = Logger(label: "hotword.assistant")

    init(susi: SUSIClient, catalog: SUSISkillCatalog) {
        self.susi = susi
        self.catalog = catalog
    }

    /// Three example questions from different skills, drawn with `generator`.
    func help(using generator: inout some RandomNumberGenerator) async -> [SUSIStep] {
        let skills: [SUSISkill]
        do {
            skills = try await catalog.skills(group: nil).value
        } catch {
            logger.error("help: \(error)")
            return Self.say("I can't fetch the list of my skills right now. Please try again later.")
        }
        let examples = SUSISkill.suggestions(from: skills, count: 3, using: &generator)
        guard !examples.isEmpty else { return Self.say("Just ask me a question.") }
        let quoted = examples.map { "“\($0)”" }
        let list = quoted.count == 1 ? quoted[0] : quoted.dropLast().joined(separator: ", ") + " or " + quoted.last!
        return Self.say("You can ask me, for example: \(list)")
    }

    /// Rates `answer`; the steps say how that went, and `rated` whether SUSI counted it.
    func rate(_ answer: AnsweredQuestion, _ rating: SUSIRating) async -> (steps: [SUSIStep], rated: Bool) {
        do {
            switch try await susi.rate(skillPath: answer.skill, rating, query: answer.question, reply: answer.reply) {
            case .rated(let skill, _, let logError):
                if let logError { logger.warning("rated \(skill), but the feedback log failed: \(logError)") }
                logger.info("rated the answer of \(skill) \(rating.rawValue)")
                return (Self.say(rating == .positive ? "Thank you! I told SUSI." : "Sorry about that. I told SUSI."), true)
            case .notRatable(let path, let reason):
                logger.info("not rated (\(path ?? "no skill")): \(reason)")
                return (Self.say("That answer can't be rated: \(reason)."), false)
            }
        } catch {
            logger.error("rating: \(error)")
            return (Self.say("I couldn't send the rating to SUSI."), false)
        }
    }

    static func say(_ text: String) -> [SUSIStep] {
        [.print("SUSI: \(text)"), .speak(text, language: "en")]
    }
}

public extension Exchange.Rating {
    /// The history's name for a SUSI rating (the same words: the history does not know SUSI).
    init(_ rating: SUSIRating) {
        self = rating == .positive ? .positive : .negative
    }
}
