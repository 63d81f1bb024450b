import Foundation
import HotwordAssistant
import HotwordSUSI
import HotwordTestSupport
import HotwordTranscripts
import Testing

/// The question model (`QuestionModelFile`) built from the question forms and a skill list cached
/// from the SUSI test server, and heard through the real pocketsphinx.
@Suite struct QuestionModelTests {
    private let dictionary = PocketSphinxConfiguration().dictionary

    @Test func isBuiltFromTheFormsAndTheCachedSkillsAndReplacedOnlyWhenItChanges() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let skills = folder.appendingPathComponent("susi-skills")
        let file = folder.appendingPathComponent("question-model.arpa")
        // No skill list cached yet: the built-in forms alone.
        let formsOnly = try QuestionModelFile.update(file, skillCache: skills, dictionary: dictionary)
        #expect(formsOnly.skillExamples == 0 && formsOnly.written)
        #expect(formsOnly.sentences > 1_000 && formsOnly.unknownWords.isEmpty, "\(formsOnly.unknownWords)")
        #expect(try QuestionModelFile.update(file, skillCache: skills, dictionary: dictionary).written == false)

        let server = try SUSITestServer()
        defer { server.shutdown() }
        var configuration = SUSIConfiguration(clientVersion: "test", server: server.baseURL)
        configuration.retry = .never
        _ = try await SUSISkillCatalog(client: SUSIClient(configuration: configuration), cacheFolder: skills).skills(group: nil)
        let withSkills = try QuestionModelFile.update(file, skillCache: skills, dictionary: dictionary)
        // "How do I make a mojito?" is left out: the dictionary has no "mojito".
        #expect(withSkills.skillExamples == 4 && withSkills.written)
        #expect(withSkills.sentences == formsOnly.sentences + 3)
        #expect(withSkills.unknownWords == ["mojito": 1])
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.contains("\twhat is susi\n") && text.contains("\nngram 3="))
        // Written atomically: no temporary file is left beside it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["question-model.arpa", "susi-skills"])
    }

    /// A running recogniser hears with SUSI's skills from the utterance after they were fetched:
    /// the model is built again and the decoder swapped, without a restart.
    @Test func isBuiltAgainWhileRunningOnceTheSkillListsChange() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let skills = folder.appendingPathComponent("susi-skills")
        let recognizer = try await PocketSphinxRecognizer(PocketSphinxConfiguration(
            questionModel: .built(file: folder.appendingPathComponent("question-model.arpa"), skillCache: skills),
            dictionaryCutFolder: folder))
        #expect(await recognizer.questionModel?.skillExamples == 0)
        let speech = try await SpeechFixtures.speech("what time is it")
        _ = try await recognizer.transcribe(speech)
        #expect(await recognizer.questionModel?.skillExamples == 0)

        let server = try SUSITestServer()
        defer { server.shutdown() }
        var configuration = SUSIConfiguration(clientVersion: "test", server: server.baseURL)
        configuration.retry = .never
        _ = try await SUSISkillCatalog(client: SUSIClient(configuration: configuration), cacheFolder: skills).skills(group: nil)
        _ = try await recognizer.transcribe(speech)
        #expect(await recognizer.questionModel?.skillExamples == 4)
        let heard = try await recognizer.transcribe(speech)
        #expect(heard.split(separator: " ").contains("time"), "the new decoder heard \"\(heard)\"")
    }

    @Test func pocketsphinxHearsAQuestionAtLeastAsWellWithItAsWithout() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("question-model.arpa")
        // A question none of the forms says: the general model heard "the setup time if our ten minutes".
        let question = "please set a timer for ten minutes"
        let speech = try await SpeechFixtures.speech(question)
        let general = try await PocketSphinxRecognizer(PocketSphinxConfiguration(questionModel: .none))
        let withQuestions = try await PocketSphinxRecognizer(PocketSphinxConfiguration(
            questionModel: .built(file: file, skillCache: folder.appendingPathComponent("susi-skills"))))
        #expect(FileManager.default.fileExists(atPath: file.path))
        let heardByGeneral = try await general.transcribe(speech)
        let heardWithQuestions = try await withQuestions.transcribe(speech)
        let errors = { (heard: String) in
            WordErrors(reference: TranscriptWords.normalized(question), hypothesis: TranscriptWords.normalized(heard)).errors
        }
        #expect(errors(heardWithQuestions) <= errors(heardByGeneral),
                "with the question model \"\(heardWithQuestions)\", without \"\(heardByGeneral)\"")
        #expect(errors(heardWithQuestions) <= 2, "\"\(heardWithQuestions)\"")
    }

    @Test func aQuestionModelFileThatIsMissingOrNotAModelIsNamed() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let missing = folder.appendingPathComponent("missing.arpa").path
        await #expect(throws: SpeechToTextError.pocketsphinxModelMissing(role: "question model", path: missing)) {
            try await PocketSphinxRecognizer(PocketSphinxConfiguration(questionModel: .file(missing)))
        }
        let garbage = folder.appendingPathComponent("garbage.arpa")
        try Data("not a language model\n".utf8).write(to: garbage)
        await #expect(throws: SpeechToTextError.questionModelRejected(path: garbage.path)) {
            try await PocketSphinxRecognizer(PocketSphinxConfiguration(questionModel: .file(garbage.path)))
        }
    }
}

@Suite struct QuestionModelSettingTests {
    @Test func settingsNameTheBuiltModelNoneOrAFile() {
        #expect(PocketSphinxConfiguration.QuestionModel(setting: "built") == .builtInCache)
        #expect(PocketSphinxConfiguration.QuestionModel(setting: "none") == PocketSphinxConfiguration.QuestionModel.none)
        #expect(PocketSphinxConfiguration.QuestionModel(setting: "/m/q.arpa") == .file("/m/q.arpa"))
        #expect(PocketSphinxConfiguration().questionModel == PocketSphinxConfiguration.QuestionModel.none)
    }

    @Test func aQuestionModelFileThatCannotBeReadIsAnUnusableSettingNamingItsKey() throws {
        var configuration = AssistantConfiguration(clientVersion: "test")
        configuration.stt.pocketsphinx.questionModel = .file("/nonexistent/questions.arpa")
        let problems = try configuration.unusableSpeechSettings()
        #expect(problems.map(\.key) == [["stt", "pocketsphinx", "question_model"]])
        #expect(problems.first?.description.hasPrefix("stt.pocketsphinx.question_model = \"/nonexistent/questions.arpa\" is invalid") == true)
        // Not when nothing would load it.
        configuration.stt.backend = .wyoming
        configuration.stt.fallback = .none
        #expect(try configuration.unusableSpeechSettings().isEmpty)
    }
}
