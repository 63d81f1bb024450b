import Foundation
import HotwordTestSupport
import Testing

@Suite("hotword synthesize")
struct SynthesizeCommandTests {
    @Test func writesClipsAndPrintsWhatWasDropped() async throws {
        let folder = try TestPaths.temporaryDirectory("synthesize-cli")
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try await HotwordBinary.run(["synthesize", "computer", "--out", folder.path, "--max-clips", "3",
                                                  "--engine", "flite", "--threads", "2", "--seed", "9"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("\"computer\": 3 clips from 5 voices in "))
        #expect(result.stdout.contains("positive clips by engine:\n  flite "))
        #expect(result.stdout.contains("manifest: \(folder.path)/manifest.jsonl"))
        let manifest = try String(contentsOf: folder.appendingPathComponent("manifest.jsonl"), encoding: .utf8)
        #expect(manifest.split(separator: "\n").count == 3)
        #expect(result.stderr.contains("checking 3 positive clips with pocketsphinx"))
    }

    @Test func badInputIsOneLineWithoutUsage() async throws {
        let folder = try TestPaths.temporaryDirectory("synthesize-cli")
        defer { try? FileManager.default.removeItem(at: folder) }
        let empty = try await HotwordBinary.run(["synthesize", "  ", "--out", folder.path])
        #expect(empty.status != 0)
        #expect(empty.stderr == "Error: the phrase \"  \" is empty: give the wake word as text, e.g. \"hey susi\"\n")
        let file = folder.appendingPathComponent("file")
        try Data().write(to: file)
        let unwritable = try await HotwordBinary.run(["synthesize", "computer", "--out", file.path + "/clips"])
        #expect(unwritable.status != 0)
        #expect(unwritable.stderr.hasPrefix("Error: cannot write to the output folder \(file.path)/clips: "))
        let engine = try await HotwordBinary.run(["synthesize", "computer", "--out", folder.path, "--engine", "mbrola"])
        #expect(engine.status != 0)
        #expect(engine.stderr.contains("mbrola"))
        let soundAlikes = try await HotwordBinary.run(["synthesize", "computer", "--out", folder.path, "--sound-alikes=-2"])
        #expect(soundAlikes.status != 0)
        #expect(soundAlikes.stderr == "Error: --sound-alikes -2 is invalid: expected 0 or more words\n")
    }
}
