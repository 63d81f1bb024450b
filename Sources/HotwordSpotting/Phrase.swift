import Foundation

/// Phrases as the engines and the spotter get them: lower case, letters, digits and
/// apostrophes, single spaces.
public enum Phrase {
    public static func normalised(_ text: String) -> String {
        let kept = text.lowercased().map { character -> Character in
            character.isLetter || character.isNumber || character == "'" ? character : " "
        }
        return String(kept).split(separator: " ").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "'")) }
            .filter { !$0.isEmpty }.joined(separator: " ")
    }

    /// The words of the normalised phrase.
    public static func words(of text: String) -> [String] {
        normalised(text).split(separator: " ").map(String.init)
    }
}
