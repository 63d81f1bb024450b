import Foundation
import HotwordAudio
import HotwordCore
import HotwordModels
import HotwordTestSupport
import Testing

/// `hotword ensemble` on hand-built tone models: two that hear 1 kHz bursts, one other word.
@Suite final class EnsembleCommandTests {
    let folder: URL

    init() throws { folder = try TestPaths.temporaryDirectory("ensemble-cli") }
    deinit { try? FileManager.default.removeItem(at: folder) }

    func save(_ model: KeywordModel, _ name: String) throws -> String {
        let path = folder.appendingPathComponent(name).path
        try ModelStore.save(model, to: path)
        return path
    }

    /// `hotword detect` with `model` finds both 1 kHz bursts of a 5 s recording.
    func expectBothBurstsHeard(by model: String) async throws {
        let tones = folder.appendingPathComponent("tones.wav").path
        try AudioFileWriter.writeWAV(ToneModels.signal(seconds: 5, tones: [(1, 1_000), (3, 1_000)]),
                                     to: URL(fileURLWithPath: tones), sampleRate: 16_000)
        let detected = try await HotwordBinary.run(["detect", tones, "--model", model])
        #expect(detected.stdout.split(separator: "\n").count == 2, "both bursts: \(detected.stdout) \(detected.stderr)")
    }

    @Test func combinesModelsIntoOneThatStillHearsTheWord() async throws {
        var first = ToneModels.model(keyword: "beep", frequency: 1_000)
        first.training.command = "hotword train --seed 1"
        var second = ToneModels.model(keyword: "beep", frequency: 1_000)
        second.training.command = "hotword train --seed 2"
        second.layers[1] = .dense(DenseLayer(inputs: 1, outputs: 1, activation: .sigmoid, weights: [1.2], bias: [-6]))
        let paths = [try save(first, "seed1.hwks"), try save(second, "seed2.hwks")]
        let out = folder.appendingPathComponent("both.hwks").path

        let result = try await HotwordBinary.run(["ensemble"] + paths + ["--out", out])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("2 models side by side"), "\(result.stdout)")
        let combined = try ModelStore.load(out)
        #expect(combined.parameterCount == 2 * first.parameterCount - 1)
        #expect(combined.training.data == ["member \(paths[0]): hotword train --seed 1", "member \(paths[1]): hotword train --seed 2"])
        #expect(combined.training.command.hasPrefix("hotword ensemble "))
        try await expectBothBurstsHeard(by: out)
    }

    /// Two models of one word on different front ends pair: a version-2 file that runs both.
    @Test func modelsOnTwoFrontEndsPairIntoOneThatStillHearsTheWord() async throws {
        var slower = ToneModels.model(keyword: "beep", frequency: 1_000)
        slower.frontend.frameShift = 480
        let paths = [try save(ToneModels.model(keyword: "beep", frequency: 1_000), "logmel.hwks"), try save(slower, "other.hwks")]
        let out = folder.appendingPathComponent("pair.hwks").path

        let result = try await HotwordBinary.run(["ensemble"] + paths + ["--out", out])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("2 models on two front ends"), "\(result.stdout)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: out))[4] == 2, "format version 2")
        #expect(try ModelStore.load(out).companion?.frontend == slower.frontend)
        try await expectBothBurstsHeard(by: out)
    }

    @Test func modelsOfOtherWordsOrTooFewAreRefusedClearly() async throws {
        let beep = try save(ToneModels.model(keyword: "beep", frequency: 1_000), "beep.hwks")
        let boop = try save(ToneModels.model(keyword: "boop", frequency: 2_000), "boop.hwks")
        let out = folder.appendingPathComponent("out.hwks").path
        let mixed = try await HotwordBinary.run(["ensemble", beep, boop, "--out", out])
        #expect(mixed.status != 0)
        #expect(mixed.stderr.contains("\(beep), \(boop): cannot combine the models into an ensemble: member 2 does not match member 1 in its keywords"),
                "\(mixed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out), "nothing is written")
        let one = try await HotwordBinary.run(["ensemble", beep, "--out", out])
        #expect(one.status != 0 && one.stderr.contains("give two or more models to combine, got 1"), "\(one.stderr)")
    }
}
