import Foundation
import HotwordAssistant
import HotwordAudio
import HotwordCore
import HotwordTestSupport
import Testing

/// PocketSphinxRecognizer through the real pocketsphinx library and Debian's en-us models,
/// fed with speech from the real espeak-ng.
@Suite struct PocketSphinxRecognizerTests {
    /// Sentences pocketsphinx recognises reliably from `SpeechFixtures.recognisableVoice`, with a
    /// word the transcript must contain. (Not "what is the weather in berlin": "berlin" derails the
    /// language model, and "weather" survives in only about two of three syntheses.)
    static let reliableSentences = [
        ("what is the weather like today", "weather"),
        ("what time is it", "time"),
        ("how old are you", "old"),
        ("what is your name", "name"),
        ("what is the capital of france", "capital"),
    ]

    @Test(arguments: reliableSentences)
    func transcribesSynthesizedSpeech(sentence: String, word: String) async throws {
        let recognizer = try await SpeechFixtures.pocketsphinx()
        let text = try await recognizer.transcribe(try await SpeechFixtures.speech(sentence))
        #expect(transcript(text, contains: word), "\"\(sentence)\" was heard as \"\(text)\"")
    }

    @Test func hearsNothingInSilence() async throws {
        let recognizer = try await SpeechFixtures.pocketsphinx()
        #expect(try await recognizer.transcribe([Float](repeating: 0, count: 2 * AudioFormat.sampleRate)) == "")
        #expect(try await recognizer.transcribe([]) == "")
    }

    @Test func decodesConcurrentCallersOneAfterTheOther() async throws {
        let recognizer = try await SpeechFixtures.pocketsphinx()
        let weather = try await SpeechFixtures.speech("what is the weather like today")
        let time = try await SpeechFixtures.speech("what time is it")
        async let first = recognizer.transcribe(weather)
        async let second = recognizer.transcribe(time)
        let (heardWeather, heardTime) = try await (first, second)
        #expect(transcript(heardWeather, contains: "weather") && !transcript(heardWeather, contains: "time"), "\(heardWeather)")
        #expect(transcript(heardTime, contains: "time") && !transcript(heardTime, contains: "weather"), "\(heardTime)")
    }

    @Test func theSameAudioIsHeardTheSameWhateverCameBefore() async throws {
        let recognizer = try await SpeechFixtures.pocketsphinx()
        // Real read speech: pocketsphinx's live normalisation would carry its estimate over.
        let file = TestPaths.sharedData.appendingPathComponent("speech/speechocean762/SPEAKER0044_000440175.flac")
        let speech = try AudioFileReader.read(file).samples
        let first = try await recognizer.transcribe(speech)
        _ = try await recognizer.transcribe([Float](repeating: 0, count: 2 * AudioFormat.sampleRate))
        _ = try await recognizer.transcribe(try await SpeechFixtures.speech("what is the weather like today"))
        let again = try await recognizer.transcribe(speech)
        #expect(again == first, "first \"\(first)\", then \"\(again)\"")
    }

    /// The decoder loads only the dictionary's words its language model has: alternative
    /// pronunciations kept, the rest left out, and the same words heard.
    @Test func loadsOnlyTheDictionaryWordsTheLanguageModelKnows() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let model = folder.appendingPathComponent("time.arpa")
        try Data(Self.arpa(unigrams: ["<s>", "</s>", "what", "time", "is", "it", "read"]).utf8).write(to: model)
        let cuts = folder.appendingPathComponent("cache")
        let recognizer = try await PocketSphinxRecognizer(PocketSphinxConfiguration(languageModel: model.path, dictionaryCutFolder: cuts))
        let written = try FileManager.default.contentsOfDirectory(atPath: cuts.path)
        try #require(written.count == 1, "\(written)")
        let entries = try String(contentsOf: cuts.appendingPathComponent(written[0]), encoding: .utf8).split(separator: "\n")
        #expect(Set(entries.map { String($0.prefix { $0 != " " }) }) == ["what", "what(2)", "time", "is", "it", "read", "read(2)"], "\(entries)")
        let text = try await recognizer.transcribe(try await SpeechFixtures.speech("what time is it"))
        #expect(text == "what time is it")
        // Another model: a cut of its own, the old one removed.
        try Data(Self.arpa(unigrams: ["<s>", "</s>", "what", "time"]).utf8).write(to: model)
        _ = try await PocketSphinxRecognizer(PocketSphinxConfiguration(languageModel: model.path, dictionaryCutFolder: cuts))
        let rewritten = try FileManager.default.contentsOfDirectory(atPath: cuts.path)
        #expect(rewritten.count == 1 && rewritten != written, "\(rewritten)")
    }

    @Test func theWholeGeneralModelHearsTheSameThroughTheCutDictionary() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = TestPaths.sharedData.appendingPathComponent("speech/speechocean762/SPEAKER0044_000440175.flac")
        let speech = try AudioFileReader.read(file).samples
        let whole = try await PocketSphinxRecognizer(PocketSphinxConfiguration(dictionaryCutFolder: nil)).transcribe(speech)
        let cut = try await PocketSphinxRecognizer(PocketSphinxConfiguration(dictionaryCutFolder: folder)).transcribe(speech)
        #expect(!whole.isEmpty && cut == whole, "whole dictionary \"\(whole)\", cut \"\(cut)\"")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).count == 1)
    }

    /// A unigram ARPA model of `unigrams`, each equally likely.
    static func arpa(unigrams: [String]) -> String {
        let probability = log10(1 / Double(unigrams.count))
        return "\\data\\\nngram 1=\(unigrams.count)\n\n\\1-grams:\n"
            + unigrams.map { "\(probability) \($0) 0\n" }.joined() + "\n\\end\\\n"
    }

    @Test func namesAMissingModelFile() async throws {
        var configuration = PocketSphinxConfiguration()
        configuration.dictionary = "/nonexistent/words.dict"
        await #expect(throws: SpeechToTextError.pocketsphinxModelMissing(role: "dictionary", path: "/nonexistent/words.dict")) {
            try await PocketSphinxRecognizer(configuration)
        }
        configuration = PocketSphinxConfiguration(acousticModel: "/nonexistent/hmm")
        await #expect(throws: SpeechToTextError.pocketsphinxModelMissing(role: "acoustic model (mdef in the -hmm folder)",
                                                                 path: "/nonexistent/hmm/mdef")) {
            try await PocketSphinxRecognizer(configuration)
        }
    }

    @Test func reportsALanguageModelItCannotRead() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let bogus = folder.appendingPathComponent("bogus.lm")
        try Data("this is not a language model\n".utf8).write(to: bogus)
        let error = await #expect(throws: SpeechToTextError.self) {
            try await PocketSphinxRecognizer(PocketSphinxConfiguration(languageModel: bogus.path))
        }
        guard case .pocketsphinxInitializationFailed(let arguments) = error else {
            Issue.record("unexpected \(String(describing: error))")
            return
        }
        #expect(arguments.contains(bogus.path))
    }

    @Test func writesItsOwnLogToTheConfiguredFile() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = folder.appendingPathComponent("pocketsphinx.log")
        _ = try await PocketSphinxRecognizer(PocketSphinxConfiguration(logFile: log.path))
        let text = try String(contentsOf: log, encoding: .utf8)
        #expect(text.contains("INFO:"), "log holds \(text.count) characters")
    }

    @Test func anUnwritableLogFileIsNamed() async {
        await #expect(throws: SpeechToTextError.pocketsphinxLogNotWritable(path: "/nonexistent/pocketsphinx.log")) {
            try await PocketSphinxRecognizer(PocketSphinxConfiguration(logFile: "/nonexistent/pocketsphinx.log"))
        }
    }
}
