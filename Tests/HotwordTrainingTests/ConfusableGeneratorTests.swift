import Foundation
import HotwordTraining
import Testing

@Suite("confusable phrases and negative sentences")
struct ConfusableGeneratorTests {
    let withPhonemes = ConfusableGenerator(searchPath: nil)

    @Test func confusablesSoundCloseButDifferFromThePhrase() throws {
        for phrase in ["hey susi", "computer", "jarvis", "alexa"] {
            let confusables = try withPhonemes.confusables(for: phrase)
            #expect(confusables.count >= 10, "\(phrase): \(confusables.map(\.text))")
            #expect(confusables.allSatisfy { !" \($0.text) ".contains(" \(phrase) ") }, "never the phrase itself")
            #expect(confusables.allSatisfy { $0.distance != nil }, "judged by espeak-ng's phonemes")
            #expect(confusables.filter { $0.rule != "table" }.allSatisfy { ($0.distance ?? 1) <= 0.75 })
            #expect(Set(confusables.map(\.text)).count == confusables.count)
        }
        let susi = try withPhonemes.confusables(for: "Hey Susi!").map(\.text)
        for expected in ["hey sushi", "hey susan", "hey you see", "he sees", "susi", "hey"] {
            #expect(susi.contains(expected), "\(expected) in \(susi)")
        }
        #expect(!susi.contains("hey suzy"), "espeak-ng reads \"suzy\" exactly like \"susi\": a homophone")
        let computer = try withPhonemes.confusables(for: "computer").map(\.text)
        for expected in ["commuter", "compute", "come pewter", "com puter", "compu"] {
            #expect(computer.contains(expected), "\(expected) in \(computer)")
        }
    }

    @Test func spellingRulesCoverAnyWord() throws {
        let confusables = try ConfusableGenerator(maximumCount: 100).confusables(for: "porcupine tree")
        let rules = Set(confusables.map(\.rule))
        #expect(rules == ["table", "drop-first-word", "drop-last-word", "replace-first-word", "vowel-swap",
                          "consonant-swap", "split-word", "merge-words", "drop-last-syllable", "drop-first-syllable"])
        let texts = confusables.map(\.text)
        for expected in ["porcelain tree", "tree", "porcupine", "oh tree", "porcupinetree", "por cupine tree", "porcu tree", "cupine tree"] {
            #expect(texts.contains(expected), "\(expected) in \(texts)")
        }
        #expect(confusables.allSatisfy { $0.distance == nil })
        #expect(try ConfusableGenerator(maximumCount: 3).confusables(for: "porcupine tree").count == 3)
    }

    @Test func anEmptyPhraseHasNoConfusables() {
        #expect(throws: SynthesisError.emptyPhrase("")) { try ConfusableGenerator().confusables(for: "...") }
    }

    @Test func negativeSentencesAreVariedAndLeaveOutThePhrase() {
        let all = NegativeSentences.all
        #expect(all.count >= 200)
        #expect(Set(all).count == all.count)
        #expect(Set(all.map { $0.split(separator: " ").count }).count >= 8, "varied lengths")
        let withoutWeather = NegativeSentences.excluding("The weather!")
        #expect(withoutWeather.count == all.count - 1)
        #expect(!withoutWeather.contains("The weather was lovely on our last day by the sea."))
        #expect(NegativeSentences.excluding("computer").count == all.count)
    }
}
