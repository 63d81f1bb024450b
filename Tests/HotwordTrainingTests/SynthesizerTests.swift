import Foundation
import HotwordAudio
import HotwordSpotting
import HotwordTestSupport
import HotwordTraining
import Testing

/// End to end with the real espeak-ng, flite and pocketsphinx programs, a few clips each.
@Suite("Synthesizer")
struct SynthesizerTests {
    /// espeak-ng and flite only: festival takes about a second per clip.
    static func options(_ phrase: String, in folder: URL, clips: Int = 4) -> SynthesisOptions {
        var options = SynthesisOptions(phrase: phrase, outputDirectory: folder)
        options.engines = [.espeakNG, .flite]
        options.maximumClips = clips
        options.jobs = 2
        return options
    }

    /// Every file under `folder` ending in .wav, relative to it.
    static func wavFiles(in folder: URL) -> Set<String> {
        let walker = FileManager.default.enumerator(atPath: folder.path)
        return Set((walker?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".wav") })
    }

    @Test func positivesAreSixteenKilohertzMonoSpeechListedInTheManifest() throws {
        let folder = try TestPaths.temporaryDirectory("synthesize")
        defer { try? FileManager.default.removeItem(at: folder) }
        let report = try Synthesizer(options: Self.options("computer", in: folder, clips: 6)).run()

        let manifest = try Manifest.read(folder.appendingPathComponent(Manifest.fileName))
        #expect(manifest == report.entries)
        #expect(manifest.count == 6)
        #expect(Set(manifest.map(\.engine)) == [.espeakNG, .flite])
        #expect(manifest.allSatisfy { $0.kind == .positive && $0.text == "computer" })
        #expect(Set(manifest.compactMap(\.file)) == Self.wavFiles(in: folder))
        let kept = manifest.filter(\.kept)
        #expect(kept.count >= 4, "most clearly spoken clips pass the check: \(manifest.map { $0.reason ?? "kept" })")
        for entry in manifest {
            #expect(entry.kept == (entry.reason == nil))
            let file = try #require(entry.file)
            #expect(file.hasPrefix(entry.kept ? "positive/" : "dropped/positive/"))
            #expect(URL(fileURLWithPath: file).lastPathComponent.hasPrefix("\(entry.engine.rawValue)-\(entry.voice)_"))
            let url = folder.appendingPathComponent(file)
            let info = try AudioFileReader.info(of: url)
            #expect(info.sampleRate == 16_000 && info.channels == 1)
            #expect(info.encodingName.contains("16 bit"))
            let samples = try AudioFileReader.read(url).samples
            let peak = samples.map(abs).max() ?? 0
            #expect(abs(20 * log10(Double(peak)) - entry.levelDB) < 0.2, "peak at the planned level")
            let speech = try #require(entry.speechSeconds)
            #expect(speech > 0.3 && speech < 1.5, "\"computer\" takes about half a second: \(speech) s")
            let expected = entry.leadSeconds + speech + entry.tailSeconds
            #expect(abs(info.duration - expected) <= 0.11, "lead + speech (+ 50 ms margins) + tail")
            #expect(samples.prefix(Int(entry.leadSeconds * 16_000)).allSatisfy { $0 == 0 }, "silence before")
        }
    }

    @Test func negativesAreConfusablePhrasesAndSentences() throws {
        let folder = try TestPaths.temporaryDirectory("synthesize")
        defer { try? FileManager.default.removeItem(at: folder) }
        var options = Self.options("hey susi", in: folder, clips: 5)
        options.negatives = true
        let report = try Synthesizer(options: options).run()
        let keptVoices = Set(report.entries.filter { $0.kind == .positive && $0.kept }.map(\.voice))
        #expect(!keptVoices.isEmpty)
        #expect(Set(report.entries.filter { $0.kind != .positive }.map(\.voice)).isSubset(of: keptVoices),
                "negatives are spoken by the voices of the kept positives")

        let confusables = report.entries.filter { $0.kind == .confusable }
        let sentences = report.entries.filter { $0.kind == .speech }
        #expect(confusables.count == 5 && sentences.count == 5)
        #expect(confusables.allSatisfy { $0.text != "hey susi" && $0.rule != nil })
        #expect(Set(confusables.map(\.text)).isSubset(of: Set(report.confusables.map(\.text))))
        #expect(sentences.allSatisfy { NegativeSentences.all.contains($0.text) })
        #expect(Set(report.entries.compactMap(\.file)) == Self.wavFiles(in: folder))
        #expect(report.entries.filter { $0.kind != .positive && $0.kept }.count >= 8)
        #expect(report.entries.filter { $0.kind == .confusable && $0.kept }.allSatisfy { $0.file!.hasPrefix("confusable/") })
        #expect(report.entries.filter { $0.kind == .speech && $0.kept }.allSatisfy { $0.file!.hasPrefix("speech/") })
        let longest = try #require(sentences.compactMap(\.speechSeconds).max())
        #expect(longest > 1.2, "sentences are longer than a wake word")
    }

    @Test func soundAlikesAreRealWordsSpokenIntoTheirOwnFolder() throws {
        let folder = try TestPaths.temporaryDirectory("synthesize")
        defer { try? FileManager.default.removeItem(at: folder) }
        var options = Self.options("jarvis", in: folder, clips: 4)
        options.soundAlikes = 3
        options.check = .none  // every positive kept: four voices speak the words
        let report = try Synthesizer(options: options).run()
        let words = report.confusables.filter { $0.rule == "sound-alike" }
        #expect(words.count == 3 && report.confusables.count == 3, "no spelled confusables without --negatives")
        let dictionary = Set(try Pronouncer(dictionary: Pronouncer.defaultDictionary).dictionaryWords().map(\.word))
        #expect(words.allSatisfy { dictionary.contains($0.text) && $0.text != "jarvis" }, "\(words.map(\.text))")
        let spoken = report.entries.filter { $0.kind == .soundAlike }
        #expect(spoken.count == 4, "two voices a word, capped by --max-clips")
        #expect(Set(spoken.map(\.text)).isSubset(of: Set(words.map(\.text))))
        #expect(report.entries.filter { $0.kind == .confusable || $0.kind == .speech }.isEmpty)
        #expect(spoken.filter(\.kept).allSatisfy { $0.file!.hasPrefix("sound-alike/") })
        #expect(Set(report.entries.compactMap(\.file)) == Self.wavFiles(in: folder))
    }

    @Test func theSameSeedGivesTheSameClipsAndAnotherSeedOthers() throws {
        let folder = try TestPaths.temporaryDirectory("synthesize")
        defer { try? FileManager.default.removeItem(at: folder) }
        func run(_ name: String, seed: UInt64) throws -> (manifest: Data, folder: URL) {
            var options = Self.options("jarvis", in: folder.appendingPathComponent(name))
            options.seed = seed
            try Synthesizer(options: options).run()
            return (try Data(contentsOf: options.outputDirectory.appendingPathComponent(Manifest.fileName)), options.outputDirectory)
        }
        let first = try run("a", seed: 5), second = try run("b", seed: 5), other = try run("c", seed: 6)
        #expect(first.manifest == second.manifest)
        #expect(first.manifest != other.manifest)
        for file in Self.wavFiles(in: first.folder) {
            #expect(try Data(contentsOf: first.folder.appendingPathComponent(file))
                == Data(contentsOf: second.folder.appendingPathComponent(file)), "\(file) is identical")
        }
    }

    @Test func aRerunReplacesTheClipsOfThePreviousRun() throws {
        let folder = try TestPaths.temporaryDirectory("synthesize")
        defer { try? FileManager.default.removeItem(at: folder) }
        let mine = folder.appendingPathComponent("positive/mine.wav")
        try FileManager.default.createDirectory(at: mine.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("not ours".utf8).write(to: mine)
        var options = Self.options("alexa", in: folder, clips: 6)
        options.check = .none
        try Synthesizer(options: options).run()
        options.maximumClips = 2
        let smaller = try Synthesizer(options: options).run()
        #expect(Self.wavFiles(in: folder) == Set(smaller.entries.compactMap(\.file)).union(["positive/mine.wav"]),
                "clips of the first run that the second did not make are gone; other files stay")
        let again = try Synthesizer(options: options).run()
        #expect(again.entries == smaller.entries)
    }

    @Test func anEmptyPhraseIsRejected() throws {
        let folder = try TestPaths.temporaryDirectory("synthesize")
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(throws: SynthesisError.emptyPhrase(" ?! ")) {
            try Synthesizer(options: Self.options(" ?! ", in: folder)).run()
        }
    }

    @Test func anUnwritableOutputFolderIsReported() throws {
        let folder = try TestPaths.temporaryDirectory("synthesize")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("a-file")
        try Data().write(to: file)
        let error = #expect(throws: SynthesisError.self) {
            try Synthesizer(options: Self.options("computer", in: file.appendingPathComponent("clips"))).run()
        }
        guard case .outputNotWritable(let path, _) = error else {
            Issue.record("expected outputNotWritable, got \(String(describing: error))")
            return
        }
        #expect(path == file.appendingPathComponent("clips").path)
    }

    @Test func noEngineOnThePathIsReported() throws {
        let folder = try TestPaths.temporaryDirectory("synthesize")
        defer { try? FileManager.default.removeItem(at: folder) }
        var options = Self.options("computer", in: folder.appendingPathComponent("clips"))
        options.engines = nil
        options.searchPath = folder.path
        #expect(throws: SynthesisError.noEngine(looked: ["espeak-ng", "flite", "text2wave", "piper", "hotword-voices"], searchPath: folder.path)) {
            try Synthesizer(options: options).run()
        }
        options.engines = [.flite]
        options.searchPath = "/usr/bin"
        try FileManager.default.createSymbolicLink(at: folder.appendingPathComponent("espeak-ng"),
                                                   withDestinationURL: URL(fileURLWithPath: "/usr/bin/espeak-ng"))
        options.searchPath = folder.path
        #expect(throws: SynthesisError.engineMissing(engine: "flite", executable: "flite")) {
            try Synthesizer(options: options).run()
        }
    }

    @Test func withoutPocketsphinxTheCheckCannotRun() throws {
        let folder = try TestPaths.temporaryDirectory("synthesize")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createSymbolicLink(at: folder.appendingPathComponent("espeak-ng"),
                                                   withDestinationURL: URL(fileURLWithPath: "/usr/bin/espeak-ng"))
        var options = Self.options("computer", in: folder.appendingPathComponent("clips"))
        options.engines = [.espeakNG]
        options.searchPath = folder.path
        #expect(throws: SynthesisError.recognizerMissing(executable: "pocketsphinx_batch", package: "pocketsphinx")) {
            try Synthesizer(options: options).run()
        }
    }

    @Test func aWordOutsideTheDictionaryNeedsEspeakToBePronounced() throws {
        let folder = try TestPaths.temporaryDirectory("synthesize")
        defer { try? FileManager.default.removeItem(at: folder) }
        var options = Self.options("hey zorblax", in: folder.appendingPathComponent("clips"), clips: 2)
        options.engines = [.espeakNG]
        let report = try Synthesizer(options: options).run()
        #expect(report.entries.count == 2)

        for program in ["flite", "pocketsphinx_batch"] {
            try FileManager.default.createSymbolicLink(at: folder.appendingPathComponent(program),
                                                       withDestinationURL: URL(fileURLWithPath: "/usr/bin/\(program)"))
        }
        options.engines = [.flite]
        options.searchPath = folder.path
        let error = #expect(throws: SynthesisError.self) { try Synthesizer(options: options).run() }
        guard case .pronunciation(.unpronounceable(let word, let reason)) = error else {
            Issue.record("expected unpronounceable, got \(String(describing: error))")
            return
        }
        #expect(word == "zorblax" && reason.contains("espeak-ng is not installed"))
    }
}
