import HotwordLanguageModel
import Testing

@Suite("The question corpus: normalised, spelled as the dictionary spells, unknown words reported")
struct QuestionCorpusTests {
    private let spellings = QuestionCorpus.spellings(ofDictionaryWords: [
        "what", "what's", "whats", "is", "the", "time", "set", "a", "timer", "for", "five", "minutes", "don't",
        "stop", "the(2)", "o'clock",
    ])

    @Test func dictionaryWordsAreFoundByTheirNormalForm() {
        #expect(spellings["dont"] == "don't")
        #expect(spellings["oclock"] == "o'clock")
        // Where both exist, the word spelled as the normal form.
        #expect(spellings["whats"] == "whats")
        #expect(spellings["the(2)"] == nil && spellings["the"] == "the")
    }

    @Test func questionsAreNormalisedAndThoseWithUnknownWordsLeftOutWhole() {
        let corpus = QuestionCorpus(questions: [
            "What's the time?", "Set a timer for 5 minutes!", "Don't stop", "what is the time in Ouagadougou",
            "", "Ouagadougou time",
        ], spellings: spellings)
        #expect(corpus.sentences == [["whats", "the", "time"], ["set", "a", "timer", "for", "five", "minutes"], ["don't", "stop"]])
        #expect(corpus.unknownWords == ["ouagadougou": 2, "in": 1])
    }

    @Test func theBuiltInFormsFillEverySlotAndAreAFewHundredSentences() {
        let sentences = QuestionForms.sentences
        #expect(sentences.count >= 300)
        #expect(!sentences.contains { $0.contains("{") || $0.contains("}") })
        #expect(sentences.contains("set a timer for five minutes"))
        #expect(sentences.contains("what is the weather in london"))
        // A slot used twice takes different values in the same sentence.
        #expect(!sentences.contains("what is one plus one"))
    }

    @Test func anEmptyCorpusHasNoModel() {
        #expect(QuestionLanguageModel.model(QuestionCorpus(questions: ["Ouagadougou"], spellings: spellings)) == nil)
        #expect(QuestionLanguageModel.model(QuestionCorpus(questions: ["stop"], spellings: spellings))?.order == 3)
    }
}
