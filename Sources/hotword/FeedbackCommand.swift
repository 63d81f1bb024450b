import ArgumentParser
import Foundation
import HotwordAssistant
import HotwordHistory
import HotwordSUSI

/// `hotword feedback positive|negative`: rates an answer SUSI gave, from the history.
struct FeedbackCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "feedback",
        abstract: "Rate SUSI's last answer (or the one numbered in `hotword history`, or the Nth last) thumbs up or down.",
        discussion: """
            Takes the answer from the history database (answers of `hotword run` and `hotword ask`), \
            rates its skill with SUSI's /cms/rateSkill.json and logs the rating with the question and \
            the answer (/cms/feedbackLog.json). Only skills of SUSI's skill store can be rated: for an \
            answer of one of its built-in skills this says so, and exits 0. No login is needed.
            """)

    @Argument(help: "positive (thumbs up) or negative (thumbs down).")
    var rating: SUSIRating

    @Argument(help: ArgumentHelp("The exchange to rate, by its number in `hotword history` (5 or #5).", valueName: "NUMBER"))
    var number: HistoryNumber?

    @Option(help: "Rate the Nth last answer SUSI gave (1: the last).")
    var last = 1

    @OptionGroup var susi: SUSIOptions

    func validate() throws {
        guard last > 0 else { throw ValidationError("--last must be at least 1, not \(last).") }
        if number != nil, last != 1 { throw ValidationError("give a NUMBER or --last, not both.") }
    }

    func run() async throws {
        let settings = try susi.settings()
        let store = try HistoryAccess.open(settings.history, creating: false)
        let exchange = try store.flatMap { store in try number.map { try Self.answer(numbered: $0.id, in: store) } ?? Self.answer(nthLast: last, in: store) }
        guard let store, let exchange else {
            let missing = number.map { "there is no exchange #\($0.id)" } ?? (last == 1 ? "there is no answer" : "there are fewer than \(last) answers")
            throw CommandFailure(missing + " to rate in the history (\(settings.history.file.path))")
        }
        guard exchange.origin == .susi else {
            throw CommandFailure("#\(exchange.id ?? 0) was not answered by SUSI (\(exchange.origin.rawValue)): there is nothing to rate")
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

    private static func answer(numbered id: Int64, in store: HistoryStore) throws -> Exchange? {
        do { return try store.exchange(id: id) } catch { throw CommandFailure("\(error)") }
    }
}

/// An exchange's number as `hotword history` shows it, `#5`, or just `5`.
struct HistoryNumber: ExpressibleByArgument {
    let id: Int64

    init?(argument: String) {
        guard let id = Int64(argument.hasPrefix("#") ? String(argument.dropFirst()) : argument), id > 0 else { return nil }
        self.id = id
    }
}

extension SUSIRating: ExpressibleByArgument {}
