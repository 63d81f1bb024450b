import Foundation
import HotwordTestSupport
import Testing

/// `hotword train`'s options reach the trainer, and a bad one is refused before any audio is read.
@Suite final class TrainCommandTests {
    let folder: URL

    init() throws {
        folder = try TestPaths.temporaryDirectory("train-cli")
        try TestCorpora.writeClip(folder.appendingPathComponent("keyword/a.wav"))
        try TestCorpora.writeClip(folder.appendingPathComponent("other/b.wav"), frequency: 880)
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    @Test func epochsPerPoolBelowOneIsRefusedByName() async throws {
        let model = folder.appendingPathComponent("m.hwks")
        let result = try await HotwordBinary.run(["train", "--keyword", "beep", "--positives", folder.appendingPathComponent("keyword").path,
                                                  "--negatives", folder.appendingPathComponent("other").path,
                                                  "--epochs-per-pool", "0", "--out", model.path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("--epochs-per-pool 0 is invalid: expected at least 1"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: model.path))
    }

    @Test(arguments: ["10:5", "5", "-40:0", "a:b"])
    func aBadSNRRangeIsRefusedByNameBeforeAnyAudioIsRead(range: String) async throws {
        let model = folder.appendingPathComponent("m.hwks")
        let result = try await HotwordBinary.run(["train", "--keyword", "beep", "--positives", folder.appendingPathComponent("keyword").path,
                                                  "--negatives", folder.appendingPathComponent("other").path,
                                                  "--snr-range=\(range)", "--out", model.path])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--snr-range '\(range)': expected MIN:MAX in dB"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: model.path))
    }
}
