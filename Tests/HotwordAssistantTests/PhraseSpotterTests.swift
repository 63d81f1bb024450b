import Foundation
import HotwordAssistant
import HotwordAudio
import HotwordSpotting
import HotwordTestSupport
import HotwordTraining
import Testing

/// PhraseSpotter through the real libpocketsphinx and Debian's en-us model, on recordings of
/// people (../shared/data/keywords), a tone and silence; and against `KeywordCheck`, the
/// `pocketsphinx_batch` check `hotword synthesize` keeps its clips by.
@Suite("phrase spotter") struct PhraseSpotterTests {
    /// The first `count` recordings (by name) of people saying `keyword`.
    static func recordings(_ keyword: String, count: Int) throws -> [[Float]] {
        let folder = TestPaths.sharedData.appendingPathComponent("keywords/\(keyword)")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".flac") }.sorted()
        return try names.prefix(count).map { try AudioFileReader.read(folder.appendingPathComponent($0)).samples }
    }

    /// Three seconds (a checked window's length) of a 1 kHz tone in bursts, and of silence.
    static let tone = ToneModels.signal(seconds: 3, tones: [(0.5, 1_000), (1.5, 1_000)])
    static let silence = [Float](repeating: 0, count: 48_000)

    @Test func hearsPeopleSayingThePhraseAndNothingElse() throws {
        let spotter = try PhraseSpotter(phrase: "computer")
        let computer = try Self.recordings("computer", count: 8).map(spotter.hears)
        let others = try (Self.recordings("jarvis", count: 4) + [Self.tone, Self.silence, []]).map(spotter.hears)
        #expect(computer.filter { $0 }.count >= 6, "\(computer)")
        #expect(others.allSatisfy { !$0 }, "\(others)")
    }

    /// Without the least duration per phone, the run-time spotter and the check `synthesize` keeps
    /// its clips by give the same verdict on the same audio: one rule, two ways of running it.
    @Test func agreesWithTheCommandLineCheck() throws {
        let clips = try Self.recordings("computer", count: 8) + Self.recordings("jarvis", count: 2) + [Self.tone]
        let spotter = try PhraseSpotter(phrase: "computer", minimumSecondsPerPhone: 0)
        let check = try KeywordCheck(phrase: "computer")
        let atRunTime = try spotter.accepts(clips)
        let fromTheCommandLine = try check.hears(clips)  // one pocketsphinx_batch process
        #expect(atRunTime == fromTheCommandLine)
        #expect(Set(atRunTime).count == 2, "the clips hold both verdicts: \(atRunTime)")
    }

    /// A spotting counts only if it lasts long enough for the phrase's phones: how long is read
    /// from pocketsphinx's own segmentation of the window.
    @Test func aSpottingTooShortForThePhrasesPhonesIsNotIt() throws {
        let clips = try Self.recordings("computer", count: 4)
        let heard = try PhraseSpotter(phrase: "computer").accepts(clips)
        #expect(heard.filter { $0 }.count >= 3, "\(heard)")
        // "computer" has 8 phones: at 0.2 s each no person says it slowly enough.
        #expect(try PhraseSpotter(phrase: "computer", minimumSecondsPerPhone: 0.2).accepts(clips) == [false, false, false, false])
        // Played three times as fast (every third sample: pitch up too), pocketsphinx still spots
        // some of them, in far less than 50 ms a phone.
        let hurried = clips.map { clip in stride(from: 0, to: clip.count, by: 3).map { clip[$0] } }
        let lenient = try PhraseSpotter(phrase: "computer", minimumSecondsPerPhone: 0).accepts(hurried)
        #expect(lenient.contains(true), "\(lenient)")
        #expect(try PhraseSpotter(phrase: "computer").accepts(hurried) == [false, false, false, false])
    }

    @Test func aStricterThresholdHearsLess() throws {
        let clip = try Self.recordings("computer", count: 1)
        #expect(try PhraseSpotter(phrase: "computer").accepts(clip) == [true])
        #expect(try PhraseSpotter(phrase: "computer", thresholdPerPhone: 1e10).accepts(clip) == [false])
    }

    @Test func aPhraseWithoutPronunciationIsNamed() throws {
        #expect(throws: PhraseSpotterError.pronunciation(phrase: "?!", .emptyPhrase("?!"))) {
            try PhraseSpotter(phrase: "?!")
        }
        // Not in the CMU dictionary, and no espeak-ng in an empty search path to read it.
        let empty = try TestPaths.temporaryDirectory("spotter")
        defer { try? FileManager.default.removeItem(at: empty) }
        let error = #expect(throws: PhraseSpotterError.self) { try PhraseSpotter(phrase: "hey zorblax", searchPath: empty.path) }
        guard case .pronunciation("hey zorblax", .unpronounceable(let word, let reason)) = error else {
            Issue.record("expected zorblax to be unpronounceable, got \(String(describing: error))")
            return
        }
        #expect(word == "zorblax" && reason.contains("espeak-ng is not installed"))
        #expect("\(error!)".contains("zorblax"))
    }

    @Test func missingModelFilesAreNamed() throws {
        let folder = try TestPaths.temporaryDirectory("spotter")
        defer { try? FileManager.default.removeItem(at: folder) }
        let missing = folder.appendingPathComponent("en-us").path
        #expect(throws: PhraseSpotterError.modelMissing(role: "acoustic model (mdef in the -hmm folder)", path: missing + "/mdef")) {
            try PhraseSpotter(phrase: "computer", configuration: PocketSphinxConfiguration(acousticModel: missing))
        }
        #expect(throws: PhraseSpotterError.modelMissing(role: "pronouncing dictionary", path: "/nonexistent/cmudict.dict")) {
            try PhraseSpotter(phrase: "computer", configuration: PocketSphinxConfiguration(dictionary: "/nonexistent/cmudict.dict"))
        }
    }
}
