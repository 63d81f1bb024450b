import HotwordLanguageModel
import Testing

@Suite("Witten–Bell trigram models and their ARPA text, from arrays")
struct WittenBellTests {
    /// "a b" and "a": small enough to work out by hand (see `aTinyCorpusHasTheseExactValues`).
    private let tiny = WittenBell.model(NGramCounts(sentences: [["a", "b"], ["a"]], order: 3))

    @Test func countsIncludeTheSentenceMarksAndNeverPredictTheStart() {
        let counts = NGramCounts(sentences: [["a", "b"], ["a"], []], order: 3)
        #expect(counts.ngrams[0] == [["a"]: 2, ["b"]: 1, ["</s>"]: 2])
        #expect(counts.ngrams[1] == [["<s>", "a"]: 2, ["a", "b"]: 1, ["b", "</s>"]: 1, ["a", "</s>"]: 1])
        #expect(counts.ngrams[2] == [["<s>", "a", "b"]: 1, ["<s>", "a", "</s>"]: 1, ["a", "b", "</s>"]: 1])
    }

    @Test func aTinyCorpusHasTheseExactValues() {
        // Unigrams: maximum likelihood over the 5 predicted tokens.
        #expect(tiny.ngrams[0][["a"]]?.probability == 0.4)
        #expect(tiny.ngrams[0][["b"]]?.probability == 0.2)
        #expect(tiny.ngrams[0][["<s>"]]?.probability == 0)
        // <s> is followed by 2 tokens of 1 word: backoff 1/3, P(a | <s>) = (2 + 1 · 0.4) / 3.
        expectClose(tiny.ngrams[0][["<s>"]]?.backoff, 1.0 / 3)
        expectClose(tiny.ngrams[1][["<s>", "a"]]?.probability, 0.8)
        // a is followed by 2 tokens of 2 words: backoff 1/2, P(b | a) = (1 + 2 · 0.2) / 4.
        expectClose(tiny.ngrams[0][["a"]]?.backoff, 0.5)
        expectClose(tiny.ngrams[1][["a", "b"]]?.probability, 0.35)
        expectClose(tiny.ngrams[1][["a", "</s>"]]?.probability, 0.45)
        // <s> a: 2 tokens of 2 words; P(b | <s> a) = (1 + 2 · 0.35) / 4.
        expectClose(tiny.ngrams[1][["<s>", "a"]]?.backoff, 0.5)
        expectClose(tiny.ngrams[2][["<s>", "a", "b"]]?.probability, 0.425)
        // Unseen: P(a | <s> a) backs off twice, 0.5 · 0.5 · 0.4.
        expectClose(tiny.probability(of: "a", after: ["<s>", "a"]), 0.1)
        // The highest order carries no backoff weight; a word outside the vocabulary has no probability.
        #expect(tiny.ngrams[2].values.allSatisfy { $0.backoff == nil })
        #expect(tiny.probability(of: "c", after: ["a", "b"]) == 0)
    }

    @Test func everyHistorysDistributionSumsToOne() {
        let sentences = [["what", "is", "the", "time"], ["what", "is", "the", "weather"], ["what", "time", "is", "it"],
                         ["set", "a", "timer"], ["is", "it", "raining"], ["what", "is", "it"], ["the", "time"]]
        let model = WittenBell.model(NGramCounts(sentences: sentences, order: 3))
        let histories = model.ngrams[0].keys.map { $0 } + model.ngrams[1].keys.map { $0 } + [[]]
        for history in histories where history.last != "</s>" {
            let total = model.predictedTokens.reduce(0.0) { $0 + model.probability(of: $1, after: history) }
            #expect(abs(total - 1) < 1e-9, "P(· | \(history)) sums to \(total)")
        }
    }

    @Test func aUnigramModelIsMaximumLikelihood() {
        let model = WittenBell.model(NGramCounts(sentences: [["yes"], ["yes"], ["no"]], order: 1))
        #expect(model.order == 1)
        #expect(model.predictedTokens == ["</s>", "no", "yes"])
        expectClose(model.probability(of: "yes", after: ["<s>"]), 2.0 / 6)
    }

    @Test func theARPATextHasCountsSortedLinesLogarithmsAndBackoffs() {
        let text = ARPAText.text(WittenBell.model(NGramCounts(sentences: [["a", "b"], ["a"]], order: 2)), comment: ["tiny"])
        #expect(text == """
            # tiny
            \\data\\
            ngram 1=4
            ngram 2=4

            \\1-grams:
            -0.397940\t</s>
            -99.000000\t<s>\t-0.477121
            -0.397940\ta\t-0.301030
            -0.698970\tb\t-0.301030

            \\2-grams:
            -0.096910\t<s> a
            -0.346787\ta </s>
            -0.455932\ta b
            -0.154902\tb </s>

            \\end\\

            """)
    }

    private func expectClose(_ value: Double?, _ expected: Double, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(value.map { abs($0 - expected) < 1e-12 } == true, "\(String(describing: value)) is not \(expected)",
                sourceLocation: sourceLocation)
    }
}
