import Foundation
import HotwordChildProcess
import Logging

/// Pronunciations as ARPAbet phones without stress (the phone set of the CMU dictionary and of
/// pocketsphinx's US English model): from the CMU dictionary where it has the word, and from
/// espeak-ng's own reading (`espeak-ng -v en-us -x`), which covers every word and is what the
/// espeak-ng voices actually say.
public struct Pronouncer: Sendable {
    /// Where Debian's pocketsphinx-en-us puts the CMU dictionary.
    public static let defaultDictionary = URL(fileURLWithPath: "/usr/share/pocketsphinx/model/en-us/cmudict-en-us.dict")

    public let dictionary: URL?
    public let espeak: URL?
    let subprocess: Subprocess
    private let logger = Logger(label: "hotword.pronunciation")

    /// `dictionary` or `espeak` may be nil (not installed); a word needs one of them to be pronounced.
    public init(dictionary: URL?, espeak: URL?, subprocess: Subprocess) {
        self.dictionary = dictionary
        self.espeak = espeak
        self.subprocess = subprocess
    }

    /// With espeak-ng from `searchPath` (PATH by default) if it is installed.
    public init(dictionary: URL?, searchPath: String? = nil) {
        let subprocess = Subprocess(searchPath: searchPath)
        self.init(dictionary: dictionary, espeak: subprocess.locate("espeak-ng"), subprocess: subprocess)
    }

    /// Every distinct pronunciation of each word: the dictionary's first, then espeak-ng's.
    /// A word with none (not in the dictionary and no phonemes from espeak-ng) is an error.
    public func pronunciations(of words: [String]) throws(PronunciationError) -> [[[String]]] {
        let entries = try dictionaryEntries(for: Set(words))
        var result: [[[String]]] = []
        for word in words {
            var variants = entries[word] ?? []
            if variants.isEmpty, espeak != nil {
                logger.info("\"\(word)\" is not in the CMU dictionary; using espeak-ng's pronunciation")
            }
            if let spoken = try espeakPhones(word), !spoken.isEmpty, !variants.contains(spoken) {
                variants.append(spoken)
            }
            guard !variants.isEmpty else {
                throw .unpronounceable(word: word, reason: espeak == nil
                    ? "it is not in the CMU dictionary and espeak-ng is not installed to read it"
                    : "it is not in the CMU dictionary and espeak-ng reads no English phonemes in it")
            }
            result.append(variants)
        }
        return result
    }

    /// espeak-ng's US English reading of `text` in its own phoneme mnemonics with stress marks,
    /// word boundaries removed ("k'Vmpj'u:t#3" for "come pewter"), or nil without espeak-ng.
    /// Two texts with the same reading sound the same, stress included.
    public func espeakReading(_ text: String) throws(PronunciationError) -> String? {
        guard let espeak else { return nil }
        let mnemonics: String
        do {
            mnemonics = try subprocess.run(espeak, ["-v", "en-us", "-q", "-x", "--sep=_", "--", text]).standardOutput
        } catch {
            throw .espeakFailed(error)
        }
        return mnemonics.split(whereSeparator: \.isWhitespace).joined(separator: "_")
    }

    /// espeak-ng's US English reading of `text` as ARPAbet phones (stress and word boundaries
    /// dropped), or nil without espeak-ng or when it uses a phoneme this table does not know.
    func espeakPhones(_ text: String) throws(PronunciationError) -> [String]? {
        guard let reading = try espeakReading(text) else { return nil }
        return Self.arpabet(fromEspeak: reading, text: text, logger: logger)
    }

    public static func arpabet(fromEspeak reading: String, text: String, logger: Logger) -> [String]? {
        var phones: [String] = []
        for token in reading.split(separator: "_") {
            let symbol = String(token.filter { !"',%=;".contains($0) })
            if symbol.isEmpty || silent.contains(symbol) { continue }
            guard let mapped = espeakToARPAbet[symbol] else {
                logger.warning("espeak-ng phoneme \"\(symbol)\" in \"\(text)\" has no ARPAbet equivalent; ignoring its reading")
                return nil
            }
            phones += mapped
        }
        return phones
    }

    /// The dictionary's pronunciations ("word", "word(2)", ...) of the given words.
    private func dictionaryEntries(for words: Set<String>) throws(PronunciationError) -> [String: [[String]]] {
        var entries: [String: [[String]]] = [:]
        try forEachDictionaryEntry(of: words) { word, phones in
            if entries[word]?.contains(phones) != true { entries[word, default: []].append(phones) }
        }
        return entries
    }

    /// Every word of the dictionary made of letters alone ("o'clock" and "a.m." are left out) with
    /// its first pronunciation, in the dictionary's order; empty without a dictionary.
    public func dictionaryWords() throws(PronunciationError) -> [(word: String, phones: [String])] {
        var words: [(word: String, phones: [String])] = []
        try forEachDictionaryEntry { word, phones in
            if words.last?.word != word, word.allSatisfy(\.isLetter) { words.append((word, phones)) }
        }
        return words
    }

    /// Every word of the dictionary, as it spells it ("o'clock" and "a.m." included), once.
    public func dictionaryHeadwords() throws(PronunciationError) -> Set<String> {
        var words: Set<String> = []
        try forEachDictionaryEntry { word, _ in words.insert(word) }
        return words
    }

    /// Calls `body` with each line's word (without its "(2)" variant mark) and phones; with
    /// `words`, only for the lines of those words. It reads bytes, not Strings: splitting the
    /// dictionary's 134 000 lines as Strings took 0.6 s of CPU at every start of a checked model.
    private func forEachDictionaryEntry(of words: Set<String>? = nil,
                                        _ body: (String, [String]) -> Void) throws(PronunciationError) {
        guard let dictionary, FileManager.default.fileExists(atPath: dictionary.path) else { return }
        let text: Data
        do {
            text = try Data(contentsOf: dictionary)
        } catch {
            throw .dictionaryUnreadable(path: dictionary.path, reason: error.localizedDescription)
        }
        let wanted = words.map { Set($0.map { Array($0.utf8) }) }
        let isBlank: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\r") }
        text.withUnsafeBytes { bytes in
            for line in bytes.split(separator: UInt8(ascii: "\n")) {
                let fields = line.split(whereSeparator: isBlank)
                guard let head = fields.first?.prefix(while: { $0 != UInt8(ascii: "(") }), fields.count > 1 else { continue }
                if let wanted, !wanted.contains(Array(head)) { continue }
                body(String(decoding: head, as: UTF8.self), fields.dropFirst().map { String(decoding: $0, as: UTF8.self) })
            }
        }
    }

    /// Marks in espeak-ng's output that are not sounds: pauses, syllable and clause boundaries.
    private static let silent: Set<String> = [":", "|", "||", "-"]

    /// espeak-ng's English phoneme mnemonics (phsource/ph_english*) to ARPAbet, rhotic (US) style.
    static let espeakToARPAbet: [String: [String]] = [
        // vowels
        "@": ["AH"], "@2": ["AH"], "@5": ["AH"], "@-": ["AH"], "@L": ["AH", "L"], "3": ["ER"], "3:": ["ER"],
        "a": ["AE"], "a#": ["AH"], "a2": ["AH"], "aa": ["AE"], "A": ["AA"], "A:": ["AA"], "A@": ["AA", "R"],
        "0": ["AA"], "O": ["AO"], "O:": ["AO"], "O2": ["AO"], "O@": ["AO", "R"], "o@": ["AO", "R"], "o": ["OW"],
        "OI": ["OY"], "oU": ["OW"], "e": ["EH"], "E": ["EH"], "E2": ["EH"], "e@": ["EH", "R"], "eI": ["EY"],
        "i": ["IY"], "i:": ["IY"], "I": ["IH"], "I2": ["IH"], "I#": ["IH"], "i@": ["IH", "R"], "i@3": ["IH", "R"],
        "IR": ["IH", "R"], "u": ["UW"], "u:": ["UW"], "U": ["UH"], "U@": ["UH", "R"], "V": ["AH"], "VR": ["ER"],
        "E:": ["EH"], "e:": ["EY"], "a:": ["AA"], "o:": ["AO"],
        "aI": ["AY"], "aI2": ["AY"], "aI@": ["AY", "ER"], "aI3": ["AY", "ER"], "aU": ["AW"], "aU@": ["AW", "ER"],
        // consonants
        "b": ["B"], "d": ["D"], "D": ["DH"], "dZ": ["JH"], "f": ["F"], "g": ["G"], "h": ["HH"], "j": ["Y"],
        "k": ["K"], "l": ["L"], "m": ["M"], "n": ["N"], "N": ["NG"], "p": ["P"], "r": ["R"], "r-": ["R"],
        "s": ["S"], "S": ["SH"], "t": ["T"], "t#": ["T"], "t2": ["T"], "t[": ["T"], "T": ["TH"], "tS": ["CH"],
        "v": ["V"], "w": ["W"], "w#": ["W"], "W": ["W"], "x": ["K"], "z": ["Z"], "Z": ["ZH"], "?": ["T"],
        "n-": ["AH", "N"], "l-": ["AH", "L"], "m-": ["AH", "M"],
    ]
}
