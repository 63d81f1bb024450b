/// The one normalisation under which a transcript is compared with its reference, whichever
/// engine wrote it: lower case; numbers written with digits become words ("5" → "five",
/// "21" → "twenty one", "3D" → "three d"; see `NumberWords`); apostrophes join ("don't" →
/// "dont", as engines disagree on them); every other character that is neither a letter nor a
/// digit separates words (punctuation, hyphens, symbols); whitespace collapses.
public enum TranscriptWords {
    public static func normalized(_ text: String) -> [String] {
        var words: [String] = []
        for token in tokens(text.lowercased()) {
            words += spoken(token)
        }
        return words
    }

    /// Runs of letters and digits, apostrophes dropped, with "," and "." kept only between two
    /// digits (thousands, a decimal point).
    private static func tokens(_ text: String) -> [Substring] {
        var tokens: [Substring] = []
        var current = ""
        let characters = Array(text)
        for (index, character) in characters.enumerated() {
            if character.isLetter || character.isNumber {
                current.append(character)
            } else if Self.apostrophes.contains(character), !current.isEmpty {
                continue
            } else if character == "," || character == ".", current.last?.isWholeNumberDigit == true,
                      index + 1 < characters.count, characters[index + 1].isWholeNumberDigit {
                current.append(character)
            } else if !current.isEmpty {
                tokens.append(Substring(current))
                current = ""
            }
        }
        if !current.isEmpty { tokens.append(Substring(current)) }
        return tokens
    }

    private static let apostrophes: Set<Character> = ["'", "\u{2019}"]

    /// A token as spoken words: its runs of digits said as numbers, its runs of letters as they are.
    private static func spoken(_ token: Substring) -> [String] {
        var words: [String] = []
        var start = token.startIndex
        while start < token.endIndex {
            let isNumber = token[start].isWholeNumberDigit
            var end = token.index(after: start)
            while end < token.endIndex, isPartOfRun(token, at: end, number: isNumber) { end = token.index(after: end) }
            words += isNumber ? NumberWords.words(token[start..<end]) : [String(token[start..<end])]
            start = end
        }
        return words
    }

    private static func isPartOfRun(_ token: Substring, at index: Substring.Index, number: Bool) -> Bool {
        let character = token[index]
        return number ? (character.isWholeNumberDigit || character == "," || character == ".") : !character.isWholeNumberDigit
    }
}

extension Character {
    /// 0–9 (not other scripts' digits or vulgar fractions, which `NumberWords` does not say).
    var isWholeNumberDigit: Bool { isASCII && isNumber }
}
