import HotwordTranscripts
import Testing

@Suite("Word errors: the fewest edits, counted by kind")
struct WordErrorsTests {
    private func errors(_ reference: String, _ hypothesis: String) -> WordErrors {
        WordErrors(reference: TranscriptWords.normalized(reference), hypothesis: TranscriptWords.normalized(hypothesis))
    }

    @Test func theSameWordsAreNoError() {
        #expect(errors("What is the capital of France?", "what is the capital of france") == WordErrors(referenceWords: 6))
        #expect(errors("what time is it", "what time is it").rate == 0)
    }

    @Test func eachKindIsCountedWhereItHappens() {
        // "sat" heard as "sit", the second "the" missing.
        #expect(errors("the cat sat on the mat", "the cat sit on mat") == WordErrors(substitutions: 1, deletions: 1, referenceWords: 6))
        // The wake word's tail heard as a word before the question.
        #expect(errors("what time is it", "the what time is it") == WordErrors(insertions: 1, referenceWords: 4))
        #expect(errors("hey susi what time is it", "what time is it") == WordErrors(deletions: 2, referenceWords: 6))
        #expect(errors("what is the capital of france", "what is up to our roots")
            == WordErrors(substitutions: 4, referenceWords: 6))
    }

    @Test func aShiftIsOneDeletionAndOneInsertionNotThreeSubstitutions() {
        let shifted = errors("one two three", "two three four")
        #expect(shifted == WordErrors(deletions: 1, insertions: 1, referenceWords: 3))
        #expect(shifted.rate == 2.0 / 3)
    }

    @Test func nothingHeardDeletesEveryWordAndNothingSaidHasNoRate() {
        #expect(errors("press the pound key", "") == WordErrors(deletions: 4, referenceWords: 4))
        #expect(errors("press the pound key", "").rate == 1)
        let spoken = errors("", "hello there")
        #expect(spoken == WordErrors(insertions: 2))
        #expect(spoken.rate == nil)
    }

    @Test func insertionsCanMakeTheRateExceedOne() {
        #expect(errors("yes", "yes yes yes yes").rate == 3)
    }

    @Test func aTotalWeighsEachUtteranceByItsWords() {
        let total = errors("a b c d e f g h i j", "a b c d e f g h i j") + errors("k", "l")
        #expect(total == WordErrors(substitutions: 1, referenceWords: 11))
        #expect(total.rate == 1.0 / 11)
    }
}

@Suite("Transcript normalisation")
struct TranscriptWordsTests {
    @Test func caseAndPunctuationGoWhitespaceCollapses() {
        #expect(TranscriptWords.normalized("  Login incorrect.  Please enter your agent number,\tfollowed by the pound key!\n")
            == "login incorrect please enter your agent number followed by the pound key".split(separator: " ").map(String.init))
        #expect(TranscriptWords.normalized("conf-adminmenu [pause] \"quoted\" (x)") == ["conf", "adminmenu", "pause", "quoted", "x"])
        #expect(TranscriptWords.normalized("...?!") == [])
    }

    @Test func apostrophesJoinAsEnginesDisagreeOnThem() {
        #expect(TranscriptWords.normalized("That's it, don\u{2019}t go") == ["thats", "it", "dont", "go"])
    }

    @Test(arguments: [
        ("5", "five"), ("0", "zero"), ("13", "thirteen"), ("21", "twenty one"), ("40", "forty"),
        ("100", "one hundred"), ("101", "one hundred one"), ("999", "nine hundred ninety nine"),
        ("1234", "one thousand two hundred thirty four"), ("2024", "two thousand twenty four"),
        ("1,500", "one thousand five hundred"), ("1000000", "one million"), ("3000012", "three million twelve"),
        ("28.8", "twenty eight point eight"), ("0704", "zero seven zero four"),
        ("1234567890123", "one two three four five six seven eight nine zero one two three"),
    ])
    func numbersAreSaidAsWords(written: String, said: String) {
        #expect(TranscriptWords.normalized(written) == said.split(separator: " ").map(String.init))
    }

    @Test func numbersInTextAndGluedToLetters() {
        #expect(TranscriptWords.normalized("Please press 1 to mute, 2 to lock.") == ["please", "press", "one", "to", "mute", "two", "to", "lock"])
        #expect(TranscriptWords.normalized("3D audio, a 28.8 kilobit modem") == ["three", "d", "audio", "a", "twenty", "eight", "point", "eight", "kilobit", "modem"])
        #expect(TranscriptWords.normalized("set a timer for 5 minutes.") == TranscriptWords.normalized("Set a timer for five minutes"))
    }
}

@Suite("Reference lists: file<TAB>text")
struct ReferenceTranscriptsTests {
    @Test func aHeaderBlankLinesAndCRLFAreTakenInStride() throws {
        let list = "file\ttext\r\nen_US_f_Allison_activated.flac\tActivated.\r\n\n  \nclips/b.flac\t Press 1 now \n"
        #expect(try ReferenceTranscripts.parse(list, list: "t.tsv") == [
            ReferenceTranscript(file: "en_US_f_Allison_activated.flac", text: "Activated.", line: 2),
            ReferenceTranscript(file: "clips/b.flac", text: "Press 1 now", line: 5),
        ])
    }

    @Test(arguments: [
        ("a.flac\thello\nb.flac hello\n", 2, "no tab: expected file<TAB>text"),
        ("a.flac\thello\tthere\n", 1, "2 tabs: expected one, file<TAB>text"),
        ("\thello\n", 1, "no file name before the tab"),
        ("file\ttext\na.flac\t ... \n", 2, "no words to compare with after the tab (for a.flac)"),
    ])
    func aBadLineIsNamedWithItsNumber(list: String, line: Int, problem: String) {
        #expect(throws: ReferenceListError.badLine(list: "speech/t.tsv", line: line, problem: problem)) {
            try ReferenceTranscripts.parse(list, list: "speech/t.tsv")
        }
        #expect(ReferenceListError.badLine(list: "speech/t.tsv", line: line, problem: problem).description == "speech/t.tsv:\(line): \(problem)")
    }

    @Test func aListWithoutTranscriptsIsAnError() {
        #expect(throws: ReferenceListError.empty(list: "t.tsv")) { try ReferenceTranscripts.parse("file\ttext\n\n", list: "t.tsv") }
    }
}

@Suite("The question asked of SUSI")
struct QuestionTextTests {
    @Test func everyEnginesTranscriptAsksTheSameQuestion() {
        #expect(QuestionText.normalized(" What is the capital of France? ") == "what is the capital of france")
        #expect(QuestionText.normalized("Hey, what's the time?!") == "hey what's the time")
        #expect(QuestionText.normalized("¿Qué hora es?") == "qué hora es")
        #expect(QuestionText.normalized("what is the capital of france") == "what is the capital of france")
    }

    @Test func numbersAndSymbolsStay() {
        #expect(QuestionText.normalized("What is 3.5 + 1,000?") == "what is 3.5 + 1,000")
        #expect(QuestionText.normalized("Set a timer for 5 minutes.") == "set a timer for 5 minutes")
    }
}
