import HotwordTranscripts

/// Questions turned into the sentences a language model for pocketsphinx is counted from: each
/// normalised as transcripts are scored (`TranscriptWords`: lower case, numbers as words) and
/// spelled as the pronunciation dictionary spells it. A question with a word the dictionary does
/// not have is left out whole — keeping the rest would make n-grams nobody says — and the word reported.
public struct QuestionCorpus: Equatable, Sendable {
    /// The questions kept, as dictionary words.
    public private(set) var sentences: [[String]] = []
    /// Each word the dictionary lacks, and how many questions it kept out.
    public private(set) var unknownWords: [String: Int] = [:]

    /// `spellings`: each dictionary word by its normalised form (see `spellings(ofDictionaryWords:)`).
    public init(questions: [String], spellings: [String: String]) {
        for question in questions {
            let words = TranscriptWords.normalized(question)
            let spelled = words.compactMap { spellings[$0] }
            if spelled.count == words.count {
                if !spelled.isEmpty { sentences.append(spelled) }
            } else {
                for word in Set(words) where spellings[word] == nil { unknownWords[word, default: 0] += 1 }
            }
        }
    }

    /// The dictionary's words (as the first column of pocketsphinx's `.dict` has them; the
    /// alternative pronunciations `word(2)` are passed over) by the form `TranscriptWords` gives
    /// them: "what's" is found as "whats". Where two words normalise alike, the one spelled as
    /// the normal form wins ("whats" over "what's"), as both sound the same.
    public static func spellings(ofDictionaryWords words: some Sequence<String>) -> [String: String] {
        var spellings: [String: String] = [:]
        for word in words where !word.hasSuffix(")") {
            let normalized = TranscriptWords.normalized(word)
            guard normalized.count == 1, let key = normalized.first else { continue }
            if key == word || spellings[key] == nil { spellings[key] = word }
        }
        return spellings
    }
}

/// The question model: the trigram model (interpolated Witten–Bell) of a question corpus.
public enum QuestionLanguageModel {
    public static let order = 3

    /// The model of `corpus`, nil when it holds no sentence.
    public static func model(_ corpus: QuestionCorpus) -> BackoffLanguageModel? {
        corpus.sentences.isEmpty ? nil : WittenBell.model(NGramCounts(sentences: corpus.sentences, order: order))
    }
}
