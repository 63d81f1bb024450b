import Foundation
import HotwordSpotting
import HotwordTestSupport
@testable import HotwordTraining
import Testing

@Suite("Sound-alike words")
struct SoundAlikesTests {
    static let jarvis = ["JH", "AA", "R", "V", "AH", "S"]

    @Test func closeSoundsCostHalfAnEdit() {
        #expect(SoundAlikes.distance(Self.jarvis, Self.jarvis) == 0)
        #expect(SoundAlikes.distance(["CH", "AA", "R", "V", "AH", "S"], Self.jarvis) == 0.5, "affricate for affricate")
        #expect(SoundAlikes.distance(["JH", "AA", "R", "V", "IH", "S"], Self.jarvis) == 0.5, "vowel for vowel")
        #expect(SoundAlikes.distance(["M", "AA", "R", "V", "AH", "S"], Self.jarvis) == 1, "a nasal for an affricate")
        #expect(SoundAlikes.distance(["JH", "AA", "R", "V", "AH", "S", "T"], Self.jarvis) == 1, "one more phone")
        #expect(SoundAlikes.distance(["HH", "AA", "R", "V", "AH", "S", "T"], Self.jarvis) == 2)
        #expect(SoundAlikes.distance([], Self.jarvis) == 6)
    }

    @Test func theNearestRealWordsComeFirstAndNeitherTheWordNorItsHomophones() {
        let dictionary: [(word: String, phones: [String])] = [
            ("banana", ["B", "AH", "N", "AE", "N", "AH"]),
            ("carcass", ["K", "AA", "R", "K", "AH", "S"]),
            ("charvis", ["CH", "AA", "R", "V", "AH", "S"]),
            ("harvest", ["HH", "AA", "R", "V", "AH", "S", "T"]),
            ("jarvis", Self.jarvis),
            ("jarvises", Self.jarvis + ["AH", "Z"]),
            ("jarvys", Self.jarvis),
            ("jvs", ["JH", "EY", "V", "IY", "EH", "S"]),
            ("mar", ["M", "AA", "R"]),
        ]
        let found = SoundAlikes.nearest(phrase: ["jarvis"], phrasePhones: [[Self.jarvis]], dictionary: dictionary)
        #expect(found.map(\.text) == ["charvis", "carcass", "harvest"])
        #expect(found.map(\.distance) == [0.083, 0.25, 0.333])
        #expect(found.allSatisfy { $0.rule == "sound-alike" })
        let closer = SoundAlikes.nearest(phrase: ["jarvis"], phrasePhones: [[Self.jarvis]], dictionary: dictionary, maximumDistance: 0.2)
        #expect(closer.map(\.text) == ["charvis"])
    }

    @Test func eachWordOfAPhraseIsReplacedInPlace() {
        let hey = ["HH", "EY"], susi = ["S", "UW", "S", "IY"]
        let dictionary: [(word: String, phones: [String])] = [
            ("hay", hey), ("juicy", ["JH", "UW", "S", "IY"]), ("say", ["S", "EY"]), ("susie", ["S", "UW", "Z", "IY"]),
        ]
        let found = SoundAlikes.nearest(phrase: ["hey", "susi"], phrasePhones: [[hey], [susi]], dictionary: dictionary)
        #expect(found.map(\.text) == ["hey susie", "hey juicy", "say susi"])
    }

    /// `body` given a dictionary file holding `text`, in a folder of its own (removed after).
    func withDictionary(_ text: String, _ body: (_ file: URL, _ folder: URL) throws -> Void) throws {
        let folder = try TestPaths.temporaryDirectory("dictionary")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("test.dict")
        try text.write(to: file, atomically: true, encoding: .utf8)
        try body(file, folder)
    }

    @Test func theDictionaryGivesEveryWordOnceWithItsFirstPronunciation() throws {
        try withDictionary("a AH\na(2) EY\nabacus AE B AH K AH S\no'clock AH K L AA K\nread R IY D\nread(2) R EH D\nbroken\n") { file, folder in
            let words = try Pronouncer(dictionary: file).dictionaryWords()
            #expect(words.map(\.word) == ["a", "abacus", "read"])
            #expect(words.map(\.phones) == [["AH"], ["AE", "B", "AH", "K", "AH", "S"], ["R", "IY", "D"]])
            #expect(try Pronouncer(dictionary: folder.appendingPathComponent("none.dict")).dictionaryWords().isEmpty)
        }
    }

    @Test func aWordsPronunciationsAreItsOwnLinesWhateverTheSpacing() throws {
        try withDictionary("hey\tHH EY\r\nhey(2) HH  EY IY\nheyday HH EY D EY\nsusi S UW Z IY\nsusi(2) S UW Z IY\n") { file, folder throws in
            // No espeak-ng on this search path: the dictionary alone answers.
            let pronouncer = Pronouncer(dictionary: file, searchPath: folder.path)
            #expect(try pronouncer.pronunciations(of: ["susi", "hey"]) == [[["S", "UW", "Z", "IY"]], [["HH", "EY"], ["HH", "EY", "IY"]]])
            #expect(throws: PronunciationError.self) { try pronouncer.pronunciations(of: ["hay"]) }
        }
    }
}
