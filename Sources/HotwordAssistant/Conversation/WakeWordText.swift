/// Recognises the wake words in text the assistant is about to say ("Hi, I'm SUSI"), so that
/// its own voice saying them is not taken for the user. A keyword's distinctive words count —
/// those of four letters or more ("susi" of "hey susi"; a one-word keyword itself) — matched
/// as whole words, ignoring case and a trailing "'s".
struct WakeWordText: Sendable {
    private let words: Set<String>

    init(keywords: [String]) {
        var words = Set<String>()
        for keyword in keywords {
            let parts = Self.words(of: keyword)
            let distinctive = parts.filter { $0.count >= 4 }
            words.formUnion(distinctive.isEmpty ? parts : distinctive)
        }
        self.words = words
    }

    func occur(in text: String) -> Bool {
        Self.words(of: text).contains { words.contains($0) || ($0.hasSuffix("'s") && words.contains(String($0.dropLast(2)))) }
    }

    private static func words(of text: String) -> [String] {
        text.lowercased().split { !($0.isLetter || $0.isNumber || $0 == "'") }.map(String.init)
    }
}
