/// Real words that sound like the wake phrase's words: the dictionary's words nearest each word
/// of the phrase by a phone edit distance in which close sounds cost less ("carcass", "harvest",
/// "charges" for "jarvis"). The spelling rules of `ConfusableGenerator` make near-misses that are
/// mostly not words; people say real ones. Each candidate replaces its word in the phrase ("hey
/// juicy" for "hey susi").
enum SoundAlikes {
    /// Phones whose substitution costs half an edit: each vowel for another, and consonants of
    /// one manner (stops, affricates, fricatives, sibilants, nasals, liquids, glides).
    static let phoneClasses: [String: String] = {
        let groups: [String: [String]] = [
            "vowel": ["AA", "AE", "AH", "AO", "AW", "AY", "EH", "ER", "EY", "IH", "IY", "OW", "OY", "UH", "UW"],
            "stop": ["P", "B", "T", "D", "K", "G", "CH", "JH"],
            "fricative": ["F", "V", "TH", "DH", "HH"],
            "sibilant": ["S", "Z", "SH", "ZH"],
            "nasal": ["M", "N", "NG"],
            "liquid": ["L", "R"],
            "glide": ["W", "Y"],
        ]
        return Dictionary(uniqueKeysWithValues: groups.flatMap { group, phones in phones.map { ($0, group) } })
    }()

    static func substitutionCost(_ lhs: String, _ rhs: String) -> Double {
        if lhs == rhs { return 0 }
        if let group = phoneClasses[lhs], group == phoneClasses[rhs] { return 0.5 }
        return 1
    }

    /// Weighted Levenshtein distance: insertions and deletions cost 1, substitutions
    /// `substitutionCost`.
    static func distance(_ lhs: [String], _ rhs: [String]) -> Double {
        var previous = (0...rhs.count).map(Double.init)
        var current = previous
        for i in lhs.indices {
            current[0] = Double(i + 1)
            for j in rhs.indices {
                current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + substitutionCost(lhs[i], rhs[j]))
            }
            swap(&previous, &current)
        }
        return previous[rhs.count]
    }

    /// The candidates at most `maximumDistance` from the phrase (edits per phone of the word
    /// replaced), nearest first, then by text. Left out: the phrase's own words, homophones (no
    /// edit), words holding a phrase word's phones whole ("jarvises"), words more than two phones
    /// longer or shorter, and abbreviations without a vowel letter ("llc"). `phrasePhones` holds
    /// each word's pronunciations.
    static func nearest(phrase words: [String], phrasePhones: [[[String]]],
                        dictionary: [(word: String, phones: [String])],
                        maximumDistance: Double = 0.5) -> [Confusable] {
        var best: [String: Double] = [:]
        for (index, variants) in phrasePhones.enumerated() {
            for (candidate, phones) in dictionary where !words.contains(candidate) && candidate.contains(where: \.isVowelLetter) {
                let distances = variants.map { target -> Double in
                    guard abs(phones.count - target.count) <= 2, !phones.containsSequence(target) else { return .infinity }
                    return distance(phones, target) / Double(max(target.count, 1))
                }
                guard let nearest = distances.min(), nearest > 0, nearest <= maximumDistance,
                      distances.allSatisfy({ $0 > 0 }) else { continue }
                let text = ConfusableGenerator.replacing(words, at: index, with: candidate)
                best[text] = min(best[text] ?? .infinity, nearest)
            }
        }
        return best.sorted { ($0.value, $0.key) < ($1.value, $1.key) }.map { text, distance in
            Confusable(text: text, rule: "sound-alike", distance: (distance * 1000).rounded() / 1000)
        }
    }
}

private extension Character {
    var isVowelLetter: Bool { "aeiouy".contains(self) }
}
