import Foundation
import HotwordChildProcess
import HotwordFolders
import HotwordLanguageModel
import HotwordSpotting
import HotwordSUSI
import Logging

/// The question model pocketsphinx interpolates with its general one: a trigram model of what
/// people ask an assistant, built from the built-in question forms (`QuestionForms`) and the
/// example questions of SUSI's skill lists cached by `hotword skills` and "what can you do".
///
/// It is built again each time pocketsphinx loads, which takes a fraction of a second, so a
/// skill list fetched since is heard from then on; the file is replaced only when its text
/// changes, atomically (a temporary file renamed over it), so a reader never sees half a model.
public enum QuestionModelFile {
    /// In the cache folder: `$CACHE_DIRECTORY/question-model.arpa` in a systemd service, otherwise
    /// `~/.cache/hotword/question-model.arpa`.
    public static func defaultFile(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        UserFolder.cache.file("question-model.arpa", environment: environment)
    }

    /// What went into a model.
    public struct Report: Sendable, Equatable {
        public var sentences: Int
        public var skillExamples: Int
        /// Words the dictionary lacks, with how many questions each kept out.
        public var unknownWords: [String: Int]
        /// False when the file already held this model.
        public var written: Bool
    }

    private static let logger = Logger(label: "hotword.stt")

    /// Builds the model into `file` from the built-in forms and the English skill lists cached in
    /// `skillCache`, spelled as `dictionary` spells (words it lacks keep their question out).
    @discardableResult
    public static func update(_ file: URL, skillCache: URL, dictionary: String) throws(SpeechToTextError) -> Report {
        let headwords: Set<String>
        do {
            headwords = try Pronouncer(dictionary: URL(fileURLWithPath: dictionary), espeak: nil, subprocess: Subprocess())
                .dictionaryHeadwords()
        } catch {
            throw .questionModelNotBuilt(path: file.path, reason: error.description)
        }
        guard !headwords.isEmpty else { throw .pocketsphinxModelMissing(role: "dictionary", path: dictionary) }
        let examples = Array(Set(SUSISkillCatalog.cachedSkills(in: skillCache, language: "en").flatMap(\.examples))).sorted()
        let corpus = QuestionCorpus(questions: QuestionForms.sentences + examples,
                                    spellings: QuestionCorpus.spellings(ofDictionaryWords: headwords))
        guard let model = QuestionLanguageModel.model(corpus) else {
            throw .questionModelNotBuilt(path: file.path, reason: "no question has only words of \(dictionary)")
        }
        let text = ARPAText.text(model, comment: [
            "hotword's question model: interpolated Witten-Bell trigrams of \(corpus.sentences.count) questions",
            "(the built-in question forms and \(examples.count) example questions of SUSI's cached skills).",
            "Written again each time pocketsphinx loads; changes are lost.",
        ])
        let report = Report(sentences: corpus.sentences.count, skillExamples: examples.count,
                            unknownWords: corpus.unknownWords, written: (try? String(contentsOf: file, encoding: .utf8)) != text)
        if report.written {
            do {
                try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(text.utf8).write(to: file, options: .atomic)
            } catch {
                throw .questionModelNotBuilt(path: file.path, reason: error.localizedDescription)
            }
        }
        if !corpus.unknownWords.isEmpty {
            let mostFrequent = corpus.unknownWords.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.prefix(20).map(\.key)
            logger.info("question model: questions with words not in the dictionary left out", metadata: [
                "left_out": "\(QuestionForms.sentences.count + examples.count - corpus.sentences.count)",
                "words": "\(mostFrequent.joined(separator: " "))",
            ])
        }
        return report
    }
}
