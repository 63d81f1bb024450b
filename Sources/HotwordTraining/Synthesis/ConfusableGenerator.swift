import Foundation
import HotwordSpotting
import Logging

/// A text that sounds close to the wake phrase but is not it, and the rule that made it.
public struct Confusable: Sendable, Hashable, Codable {
    public var text: String
    public var rule: String
    /// Phone edit distance to the phrase over the phrase's phone count (espeak-ng's reading);
    /// nil when no phonemes were available.
    public var distance: Double?
}

/// Makes hard negatives for a wake phrase: texts sharing most of its sounds ("hey sushi",
/// "susan", "he sees" for "hey susi"; "commuter", "compute", "come pewter" for "computer").
///
/// Candidates come from, in order of preference:
/// - `table`: a curated confusion table of common wake words and lead words, applied to the
///   whole phrase and to each word;
/// - `drop-first-word`, `drop-last-word`, `replace-first-word` (multi-word phrases; the lead
///   word is swapped for another greeting or "oh", "my", "the");
/// - `vowel-swap`, `consonant-swap`: one vowel group or consonant of a word replaced by a close
///   one in spelling (u→o, s→z, s→sh, p→b, t→d, m→n, r→l, x→ck ...);
/// - `split-word`, `merge-words`: a word split at a syllable boundary ("com puter"), or two
///   words run together;
/// - `drop-last-syllable`, `drop-first-syllable`: a truncated word ("compu", "puter", "hey su").
///
/// With phonemes (espeak-ng, `-v en-us -x`), candidates that sound exactly like the phrase,
/// stress included, are removed (a model cannot learn to reject a homophone: espeak-ng reads
/// "hey suzy" exactly like "hey susi", so it goes, while "come pewter" stays: its stress differs
/// from "computer"), as are candidates containing the phrase's phones whole ("computers");
/// rule-made candidates further than `maximumDistance` (phone edits per phrase phone) are not
/// confusable and are dropped too. Output order: by rule preference, then distance, then text.
public struct ConfusableGenerator: Sendable {
    /// How many confusables at most.
    public var maximumCount: Int
    /// Rule-made candidates with more phone edits per phrase phone than this are left out.
    public var maximumDistance: Double
    /// Reads texts as phones (espeak-ng); nil = spelling rules only.
    let pronouncer: Pronouncer?
    private let logger = Logger(label: "hotword.synthesis")

    /// Spelling rules only, no phonetic filtering.
    public init(maximumCount: Int = 40, maximumDistance: Double = 0.75) {
        self.init(maximumCount: maximumCount, maximumDistance: maximumDistance, pronouncer: nil)
    }

    /// With espeak-ng's phonemes for homophone and distance filtering (spelling only without espeak-ng).
    public init(maximumCount: Int = 40, maximumDistance: Double = 0.75, searchPath: String?) {
        let pronouncer = Pronouncer(dictionary: nil, searchPath: searchPath)
        self.init(maximumCount: maximumCount, maximumDistance: maximumDistance,
                  pronouncer: pronouncer.espeak == nil ? nil : pronouncer)
    }

    init(maximumCount: Int, maximumDistance: Double, pronouncer: Pronouncer?) {
        self.maximumCount = maximumCount
        self.maximumDistance = maximumDistance
        self.pronouncer = pronouncer
    }

    public func confusables(for phrase: String) throws(SynthesisError) -> [Confusable] {
        let phrase = Phrase.normalised(phrase)
        let words = phrase.split(separator: " ").map(String.init)
        guard !words.isEmpty else { throw .emptyPhrase(phrase) }
        let targetReading = try reading(phrase)
        let target = targetReading.flatMap { Pronouncer.arpabet(fromEspeak: $0, text: phrase, logger: logger) }

        var seen: Set<String> = [phrase]
        var kept: [(candidate: Confusable, preference: Int)] = []
        for (preference, (rule, texts)) in Self.rules(for: words).enumerated() {
            for raw in texts {
                let text = Phrase.normalised(raw)
                guard !text.isEmpty, seen.insert(text).inserted, !" \(text) ".contains(" \(phrase) ") else { continue }
                var distance: Double?
                if let target, let reading = try reading(text),
                   let spoken = Pronouncer.arpabet(fromEspeak: reading, text: text, logger: logger) {
                    guard reading != targetReading, !(spoken.count > target.count && spoken.containsSequence(target)) else { continue }
                    let edits = Double(editDistance(spoken, target)) / Double(max(target.count, 1))
                    guard rule == "table" || edits <= maximumDistance else { continue }
                    distance = (edits * 1000).rounded() / 1000
                }
                kept.append((Confusable(text: text, rule: rule, distance: distance), preference))
            }
        }
        kept.sort { lhs, rhs in
            (lhs.preference, lhs.candidate.distance ?? 0, lhs.candidate.text)
                < (rhs.preference, rhs.candidate.distance ?? 0, rhs.candidate.text)
        }
        return kept.prefix(maximumCount).map(\.candidate)
    }

    /// The first `count` of `candidates` that espeak-ng does not read exactly as the phrase,
    /// stress included ("hey suzy" for "hey susi": a model cannot learn to reject it); the first
    /// `count` without espeak-ng.
    public func withoutHomophones(_ candidates: [Confusable], of phrase: String, count: Int) throws(SynthesisError) -> [Confusable] {
        guard let target = try reading(Phrase.normalised(phrase)) else { return Array(candidates.prefix(count)) }
        var kept: [Confusable] = []
        for candidate in candidates where kept.count < count {
            if try reading(candidate.text) != target { kept.append(candidate) }
        }
        return kept
    }

    /// espeak-ng's reading of `text`, or nil without espeak-ng.
    private func reading(_ text: String) throws(SynthesisError) -> String? {
        do {
            return try pronouncer?.espeakReading(text)
        } catch {
            throw .pronunciation(error)
        }
    }

    /// Every rule's candidates for the phrase's words, in order of preference.
    static func rules(for words: [String]) -> [(String, [String])] {
        let phrase = words.joined(separator: " ")
        let table = (confusionTable[phrase] ?? [])
            + words.indices.flatMap { index in (confusionTable[words[index]] ?? []).map { replacing(words, at: index, with: $0) } }
        var dropFirst: [String] = [], dropLast: [String] = [], replaceFirst: [String] = [], merged: [String] = []
        if words.count > 1 {
            dropFirst = [words.dropFirst().joined(separator: " ")]
            dropLast = [words.dropLast().joined(separator: " ")]
            let replacements = leadWords.contains(words[0]) ? leadWords : ["oh", "my", "the"]
            replaceFirst = replacements.filter { $0 != words[0] }.map { replacing(words, at: 0, with: $0) }
            merged = (1..<words.count).map { index in
                var joined = words
                joined[index - 1] += joined.remove(at: index)
                return joined.joined(separator: " ")
            }
        }
        func perWord(_ edit: (String) -> [String]) -> [String] {
            words.indices.flatMap { index in edit(words[index]).map { replacing(words, at: index, with: $0) } }
        }
        return [
            ("table", table),
            ("drop-first-word", dropFirst),
            ("drop-last-word", dropLast),
            ("replace-first-word", replaceFirst),
            ("vowel-swap", perWord(vowelSwaps)),
            ("consonant-swap", perWord(consonantSwaps)),
            ("split-word", perWord(splits)),
            ("merge-words", merged),
            ("drop-last-syllable", perWord { dropLastSyllable($0).map { [$0] } ?? [] }),
            ("drop-first-syllable", perWord { dropFirstSyllable($0).map { [$0] } ?? [] }),
        ]
    }

    /// Curated confusions: common wake words and the lead words they come with, plus whole
    /// phrases. Entries sound close (a shared stressed vowel, a swapped consonant, a different
    /// word boundary) without being the same.
    public static let confusionTable: [String: [String]] = [
        // lead words
        "hey": ["hay", "hi", "say", "they", "he"],
        "hi": ["hey", "high", "why"],
        "hello": ["yellow", "hollow", "fellow"],
        "ok": ["hockey", "croquet", "opaque"],
        "okay": ["hockey", "croquet", "opaque"],
        // wake words
        "susi": ["suzy", "sushi", "susan", "sue", "seuss", "you see", "sees"],
        "computer": ["commuter", "compute", "come pewter", "computed", "compete her", "commuting"],
        "jarvis": ["jarvie", "harvest", "travis", "marvis", "jar of this", "service"],
        "alexa": ["alexis", "a lexus", "election", "alex", "lexa", "elixir", "alaska"],
        "siri": ["series", "cereal", "serious", "sierra", "cherry"],
        "google": ["goggle", "googly", "bugle", "noodle", "doodle"],
        "mirror": ["mirra", "near her", "mere", "nearer"],
        "smart": ["start", "mart", "smack", "spark"],
        "mycroft": ["microsoft", "my craft", "microphone"],
        "porcupine": ["porcelain", "pork pine", "concubine"],
        "bumblebee": ["bumble", "humble bee", "bubble bee"],
        "terminator": ["terminal", "germinator", "exterminator"],
        "americano": ["american", "americana"],
        "grasshopper": ["grass hopper", "glass hopper"],
        // whole phrases
        "hey susi": ["he sees", "hey you see", "hey sue see", "haze you see"],
        "ok google": ["ok cool", "okay goo gull"],
        "hey siri": ["hey seriously", "his theory"],
        "smart mirror": ["smart mere", "start mirror", "smart near her"],
    ]

    static let leadWords = ["hey", "hi", "okay", "oh", "say", "hello"]

    /// Close vowels, by spelling: each vowel group of a word is replaced by its first neighbour.
    static let vowelNeighbours: [String: String] = [
        "a": "e", "e": "i", "i": "e", "o": "a", "u": "o", "y": "i",
        "ee": "i", "ea": "i", "oo": "u", "ou": "o", "ai": "ee", "ay": "ee", "ey": "i", "ie": "a", "oa": "u",
    ]

    /// Close consonants, by spelling (voicing, place or manner differs by one step).
    static let consonantNeighbours: [String: [String]] = [
        "s": ["z", "sh"], "z": ["s"], "sh": ["s", "ch"], "ch": ["sh", "j"], "j": ["ch", "y"],
        "p": ["b"], "b": ["p"], "t": ["d"], "d": ["t"], "k": ["g"], "g": ["k"], "c": ["g"],
        "f": ["v"], "v": ["f", "b"], "m": ["n"], "n": ["m"], "r": ["l", "w"], "l": ["r"],
        "x": ["ck", "s"], "th": ["f", "d"], "w": ["v"],
    ]

    static func replacing(_ words: [String], at index: Int, with replacement: String) -> String {
        var words = words
        words[index] = replacement
        return words.joined(separator: " ")
    }

    static func isVowel(_ character: Character) -> Bool { "aeiouy".contains(character) }

    /// Maximal runs of vowel letters ('y' counts after a consonant only, as in "suzy"), without a silent final 'e'.
    static func vowelGroups(_ word: [Character]) -> [Range<Int>] {
        var groups: [Range<Int>] = []
        var index = 0
        while index < word.count {
            let isVowelHere = isVowel(word[index]) && !(word[index] == "y" && (index == 0 || isVowel(word[index - 1])))
            guard isVowelHere else { index += 1; continue }
            var end = index + 1
            while end < word.count, isVowel(word[end]), word[end] != "y" || end == word.count - 1 { end += 1 }
            groups.append(index..<end)
            index = end
        }
        // A final lone 'e' after a consonant is silent ("porcupine", "google").
        if groups.count >= 2, let last = groups.last, last.count == 1, last.upperBound == word.count, word[last.lowerBound] == "e" {
            groups.removeLast()
        }
        return groups
    }

    static func vowelSwaps(_ word: String) -> [String] {
        let letters = Array(word)
        guard letters.count >= 3 else { return [] }
        return vowelGroups(letters).compactMap { group in
            let spelling = String(letters[group])
            guard let neighbour = vowelNeighbours[spelling] ?? vowelNeighbours[String(spelling.prefix(1))] else { return nil }
            return String(letters[..<group.lowerBound]) + neighbour + String(letters[group.upperBound...])
        }
    }

    static func consonantSwaps(_ word: String) -> [String] {
        let letters = Array(word)
        guard letters.count >= 3 else { return [] }
        var results: [String] = []
        var index = 0
        while index < letters.count {
            let pair = index + 1 < letters.count ? String(letters[index...(index + 1)]) : ""
            let (spelling, length) = consonantNeighbours[pair] != nil ? (pair, 2) : (String(letters[index]), 1)
            // A doubled letter is one sound: swap both ("mm" → "nn").
            let doubled = length == 1 && index + 1 < letters.count && letters[index + 1] == letters[index] ? 2 : length
            for neighbour in consonantNeighbours[spelling] ?? [] where !isVowel(letters[index]) {
                let replacement = doubled == 2 && length == 1 ? neighbour + neighbour : neighbour
                results.append(String(letters[..<index]) + replacement + String(letters[(index + doubled)...]))
            }
            index += doubled
        }
        return results
    }

    /// Splits at most two ways: between two consonants, else before a consonant between vowels.
    static func splits(_ word: String) -> [String] {
        let letters = Array(word)
        guard letters.count >= 5 else { return [] }
        let inner = 2..<(letters.count - 1)
        var points = inner.filter { !isVowel(letters[$0 - 1]) && !isVowel(letters[$0]) && letters[$0 - 1] != letters[$0] }
        if points.isEmpty { points = inner.filter { isVowel(letters[$0 - 1]) && !isVowel(letters[$0]) && isVowel(letters[$0 + 1]) } }
        return points.prefix(2).map { String(letters[..<$0]) + " " + String(letters[$0...]) }
    }

    /// The word without its last syllable: cut before the consonant that opens the last vowel group.
    static func dropLastSyllable(_ word: String) -> String? {
        let letters = Array(word)
        let groups = vowelGroups(letters)
        guard groups.count >= 2, let last = groups.last else { return nil }
        let cut = last.lowerBound - 1 > groups[groups.count - 2].upperBound - 1 ? last.lowerBound - 1 : last.lowerBound
        return cut >= 2 ? String(letters[..<cut]) : nil
    }

    /// The word without its first syllable: from the consonant that opens the second vowel group.
    static func dropFirstSyllable(_ word: String) -> String? {
        let letters = Array(word)
        let groups = vowelGroups(letters)
        guard groups.count >= 2 else { return nil }
        let start = groups[1].lowerBound - 1 >= groups[0].upperBound ? groups[1].lowerBound - 1 : groups[1].lowerBound
        return letters.count - start >= 2 ? String(letters[start...]) : nil
    }
}

/// Levenshtein distance between two sequences.
func editDistance<T: Equatable>(_ lhs: [T], _ rhs: [T]) -> Int {
    guard !lhs.isEmpty else { return rhs.count }
    guard !rhs.isEmpty else { return lhs.count }
    var previous = Array(0...rhs.count)
    var current = previous
    for i in 1...lhs.count {
        current[0] = i
        for j in 1...rhs.count {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (lhs[i - 1] == rhs[j - 1] ? 0 : 1))
        }
        swap(&previous, &current)
    }
    return previous[rhs.count]
}

extension Array where Element: Equatable {
    /// Whether `sequence` occurs contiguously in this array.
    func containsSequence(_ sequence: [Element]) -> Bool {
        guard !sequence.isEmpty, sequence.count <= count else { return sequence.isEmpty }
        return (0...(count - sequence.count)).contains { Array(self[$0..<($0 + sequence.count)]) == sequence }
    }
}
