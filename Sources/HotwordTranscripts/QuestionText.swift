/// A transcript as the question asked of SUSI, the same whichever engine heard it: Whisper
/// writes "What is the capital of France?", pocketsphinx "what is the capital of france". Lower
/// case, without the sentence punctuation (. , ? ! ; : ¿ ¡) engines add, except between two
/// digits ("3.5", "1,000"); other symbols stay (SUSI computes "5 + 5"); whitespace collapses.
public enum QuestionText {
    private static let sentencePunctuation: Set<Character> = [".", ",", "?", "!", ";", ":", "¿", "¡"]

    public static func normalized(_ transcript: String) -> String {
        let characters = Array(transcript.lowercased())
        var kept = ""
        for (index, character) in characters.enumerated() {
            if sentencePunctuation.contains(character) {
                let betweenDigits = index > 0 && index + 1 < characters.count
                    && characters[index - 1].isWholeNumberDigit && characters[index + 1].isWholeNumberDigit
                kept.append(betweenDigits ? character : " ")
            } else {
                kept.append(character)
            }
        }
        return kept.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}
