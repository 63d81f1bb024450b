import Foundation
import HotwordAssistant
import HotwordTestSupport
import Testing

/// The `whisper` backend as `hotword run` makes it from `[stt]`, hearing espeak-ng.
@Suite struct WhisperRecognizerTests {
    private static func recognizer(audio: WhisperConfiguration.Audio) async throws -> any SpeechRecognizer {
        var settings = SpeechToTextSettings()
        settings.backend = .whisper
        settings.whisper = WhisperConfiguration(model: try #require(WhisperTestModel.folder), audio: audio)
        return try await settings.selected.makeRecognizer()
    }

    @Test(.enabled(if: WhisperTestModel.folder != nil, Comment(rawValue: WhisperTestModel.skipReason)),
          arguments: [WhisperConfiguration.Audio.full, .utterance])
    func hearsAQuestion(audio: WhisperConfiguration.Audio) async throws {
        let recognizer = try await Self.recognizer(audio: audio)
        let text = try await recognizer.transcribe(try await SpeechFixtures.speech("what is the capital of france"))
        // The shorter window hears worse (docs/stt.md): only the words that matter most are required of it.
        if audio == .full { #expect(text == "What is the capital of France?") } else { #expect(text.contains("France"), "\(text)") }
        #expect(try await recognizer.transcribe([Float](repeating: 0, count: 100)) == "")
    }

    @Test func aFolderWithoutTheModelIsAnUnusableSetting() throws {
        var configuration = AssistantConfiguration(clientVersion: "test")
        configuration.stt.backend = .whisper
        configuration.stt.whisper.model = "/nonexistent/tiny.en"
        let problems = try configuration.unusableSpeechSettings()
        #expect(problems.map(\.description) == [
            "stt.whisper.model = \"/nonexistent/tiny.en\" is invalid: expected a Whisper model folder (model.bin, vocabulary.txt, config.json; it has no readable model.bin)",
        ])
    }

    @Test func aMissingModelIsNamed() async throws {
        let folder = try TestPaths.temporaryDirectory("whisper-missing")
        defer { try? FileManager.default.removeItem(at: folder) }
        await #expect {
            _ = try await SpeechToTextBackend.whisper(WhisperConfiguration(model: folder.path)).makeRecognizer()
        } throws: { error in
            "\(error)".hasPrefix("speech to text (whisper): Whisper model: cannot read \(folder.path)/model.bin")
        }
    }
}
