import ArgumentParser
import Foundation
import HotwordAssistant
import HotwordHistory
import HotwordSUSI

/// `hotword feedback positive|negative`: rates an answer SUSI gave, from the history.
struct FeedbackCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "feedback",
        abstract: "Rate SUSI's last answer (or the Nth last) thumbs up or down.",
        discussion: """
            Takes the answer from the history database (answers of `hotword run` and `hotword ask`), \
            rates its skill with SUSI's /cms/rateSkill.json and logs the rating with the question and \
            the answer (/cms/feedbackLog.json). Only skills of SUSI's skill store can be rated: for an \
            answer of one of its built-in skills this says so, and exits 0. No login is needed.
            """)

    @Argument(help: "positive (thumbs up) or negative (thumbs down).")
    var rating: SUSIRating

    @Option(help: "Rate the Nth last answer SUSI gave (1: the last).")
    var last = 1

    @OptionGroup var susi: SUSIOptions

    func validate() throws {
        guard last > 0 else { throw ValidationError("--last must be at least 1, not \(last).") }
    }

    func run() async throws {
        let settings = try susi.settings()
        guard let store = try HistoryAccess.open(settings.history, creating: false),
              let exchange = try Self.answer(nthLast: last, in: store) else {
            throw CommandFailure((last == 1 ? "there is no answer" : "there are fewer than \(last) answers")
                                 + " to rate in the history (\(settings.history.file.path))")
        }
        let reply = SUSIReply.answerText(actionsJSON: exchange.actions)
        let outcome: SUSIRatingOutcome
        do {
            outcome = try await susi.client(settings).rate(skillPath: exchange.skill, rating, query: exchange.question,
                                                           reply: reply ?? exchange.answer)
        } catch {
            throw CommandFailure("\(error)")
        }
        switch outcome {
        case .rated(let skill, let message, let logError):
            if let id = exchange.id { _ = try? store.rate(exchange: id, Exchange.Rating(rating)) }
            print("Rated the answer to “\(exchange.question)” \(rating.rawValue) (skill \(skill)): \(message).")
            if let logError { FileHandle.standardError.write(Data("(the rating was not logged: \(logError))\n".utf8)) }
        case .notRatable(_, let reason):
            print("The answer to “\(exchange.question)” cannot be rated: \(reason).")
        }
    }

    private static func answer(nthLast n: Int, in store: HistoryStore) throws -> Exchange? {
        do { return try store.answered(nthLast: n) } catch { throw CommandFailure("\(error)") }
    }
}

extension SUSIRating: ExpressibleByArgument {}
