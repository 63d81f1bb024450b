import Foundation
@testable import HotwordAssistant
import HotwordHistory
import HotwordSUSI
import HotwordTestSupport
import Testing

/// The assistant's own phrases from text: what a transcript asks for, what "what can you do"
/// answers (from the skill list, cached), what a rating sends and says.
@Suite("Voice phrases")
struct VoicePhraseTests {
    let phrases = VoicePhrases(VoicePhraseSettings())

    @Test(arguments: [("What can you do?", VoiceIntent.help), ("help", .help), ("HELP!", .help),
                      ("help me find a recipe", .ask), ("what can you do for me", .ask)])
    func helpIsAnsweredHereWhateverCameBefore(transcript: String, intent: VoiceIntent) {
        #expect(phrases.intent(of: transcript, sinceLastAnswer: nil) == intent)
        #expect(phrases.intent(of: transcript, sinceLastAnswer: 3) == intent)
    }

    @Test func ratingPhrasesCountOnlyWithinTheWindowAfterAnAnswer() {
        #expect(phrases.intent(of: "Thank you.", sinceLastAnswer: 2) == .rate(.positive))
        #expect(phrases.intent(of: "that was   WRONG", sinceLastAnswer: 14.9) == .rate(.negative))
        #expect(phrases.intent(of: "that was wrong", sinceLastAnswer: 15.1) == .ask)
        #expect(phrases.intent(of: "thank you", sinceLastAnswer: nil) == .ask)  // no answer to rate
        #expect(phrases.intent(of: "thank you very much", sinceLastAnswer: 1) == .ask)
    }

    @Test func thePhrasesAreConfigurable() {
        var settings = VoicePhraseSettings()
        settings.help = ["was kannst du"]
        settings.positive = ["danke schön"]
        settings.negative = []
        settings.feedbackWindowSeconds = 4
        let german = VoicePhrases(settings)
        #expect(german.intent(of: "Was kannst du?", sinceLastAnswer: nil) == .help)
        #expect(german.intent(of: "help", sinceLastAnswer: nil) == .ask)
        #expect(german.intent(of: "Danke schön!", sinceLastAnswer: 3) == .rate(.positive))
        #expect(german.intent(of: "Danke schön!", sinceLastAnswer: 5) == .ask)
        #expect(german.intent(of: "that was wrong", sinceLastAnswer: 1) == .ask)
    }

    @Test func withoutTheWakeWordOnlyARatingPhraseCounts() {
        #expect(phrases.rating(of: "Thank you!") == .positive)
        #expect(phrases.rating(of: "that was WRONG") == .negative)
        #expect(phrases.rating(of: "what can you do") == nil, "help needs the wake word")
        #expect(phrases.rating(of: "thank you very much") == nil)
        #expect(phrases.rating(of: "") == nil)
    }

    @Test func theFollowUpWindowLiesWithinTheFeedbackWindowAndNeedsRatingPhrases() {
        var settings = VoicePhraseSettings()
        #expect(settings.followUpWindowSeconds == 5)
        settings.feedbackWindowSeconds = 3
        #expect(settings.followUpWindowSeconds == 3)
        settings.positive = []
        settings.negative = []
        #expect(settings.followUpWindowSeconds == 0, "nothing to listen for")
    }

    private func local(_ server: SUSITestServer, cache: URL) -> LocalAnswers {
        var configuration = SUSIConfiguration(clientVersion: "test", server: server.baseURL)
        configuration.retry = .never
        let client = SUSIClient(configuration: configuration)
        return LocalAnswers(susi: client, catalog: SUSISkillCatalog(client: client, cacheFolder: cache))
    }

    @Test func helpSaysThreeExamplesFromDifferentSkillsAndThenNeedsNoServer() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try SUSITestServer()
        var generator = SeededGenerator(seed: 7)
        let steps = await local(server, cache: folder).help(using: &generator)
        let spoken = try #require(steps.compactMap { if case .speak(let text, _) = $0 { text } else { nil } }.first)
        #expect(steps.first == .print("SUSI: \(spoken)"))
        // One example of each of the three skills that have examples (recipes has none).
        let skills = SUSITestServer.skillStore.filter { $0.examples != nil }
        #expect(skills.count == 3)
        for skill in skills {
            #expect(skill.examples!.filter { spoken.contains($0) }.count == 1, "\(spoken)")
        }
        #expect(spoken.hasPrefix("You can ask me, for example: “"))
        #expect(server.requests(to: "/cms/getSkillList.json").count == 1)
        server.shutdown()

        // Cached: the same answer without the server.
        var again = SeededGenerator(seed: 8)
        let offline = await local(server, cache: folder).help(using: &again)
        #expect(offline.count == 2 && offline.first != .print("SUSI: I can't fetch the list of my skills right now. Please try again later."))
    }

    @Test func helpWithoutServerOrCacheSaysSo() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try SUSITestServer()
        server.catalogFailure = .htmlError(status: 500)
        defer { server.shutdown() }
        var generator = SeededGenerator(seed: 1)
        let steps = await local(server, cache: folder).help(using: &generator)
        #expect(steps == LocalAnswers.say("I can't fetch the list of my skills right now. Please try again later."))
    }

    @Test func aRatingOfARatableAnswerIsSentAndThanked() async throws {
        let server = try SUSITestServer()
        defer { server.shutdown() }
        let answer = AnsweredQuestion(exchangeID: 3, question: "who are you", reply: "I am SUSI.", skill: SUSITestServer.skillPath())
        let positive = await local(server, cache: URL(fileURLWithPath: "/nonexistent")).rate(answer, .positive)
        #expect(positive.rated && positive.steps == LocalAnswers.say("Thank you! I told SUSI."))
        let negative = await local(server, cache: URL(fileURLWithPath: "/nonexistent")).rate(answer, .negative)
        #expect(negative.rated && negative.steps == LocalAnswers.say("Sorry about that. I told SUSI."))
        #expect(server.requests(to: "/cms/rateSkill.json").compactMap { $0.query("rating") } == ["positive", "negative"])
        #expect(server.requests(to: "/cms/feedbackLog.json").compactMap { $0.query("susi_reply") } == ["I am SUSI.", "I am SUSI."])
    }

    @Test func anAnswerOfABuiltInSkillIsNotRatableAndSaysSo() async throws {
        let server = try SUSITestServer()
        defer { server.shutdown() }
        let answer = AnsweredQuestion(question: "hi", reply: "Hello.", skill: "/susi_server/conf/susi/en_0090_fail.json")
        let outcome = await local(server, cache: URL(fileURLWithPath: "/nonexistent")).rate(answer, .negative)
        #expect(!outcome.rated)
        #expect(outcome.steps == LocalAnswers.say("That answer can't be rated: it came from one of SUSI's built-in skills, which cannot be rated."))
        #expect(server.requests.isEmpty)
    }

    @Test func aRatingTheServerCannotTakeIsApologisedFor() async throws {
        let server = try SUSITestServer()
        server.shutdown()
        let answer = AnsweredQuestion(question: "who are you", reply: "I am SUSI.", skill: SUSITestServer.skillPath())
        let outcome = await local(server, cache: URL(fileURLWithPath: "/nonexistent")).rate(answer, .positive)
        #expect(!outcome.rated && outcome.steps == LocalAnswers.say("I couldn't send the rating to SUSI."))
    }

    @Test func plansDueLaterWaitLateOnesAreSaidAndOldOnesDropped() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        func timing(_ offset: Double) -> PlanTiming {
            PlanTiming(of: PlannedAnswer(kind: .answer, due: now.addingTimeInterval(offset), text: "Tea."), now: now, lateLimitMinutes: 60)
        }
        #expect(timing(90) == .due(in: .seconds(90)))
        #expect(timing(0) == .due(in: .zero))
        #expect(timing(-59 * 60) == .late)
        #expect(timing(-60 * 60) == .late)
        #expect(timing(-61 * 60) == .dropped(minutesLate: 61))
    }
}
