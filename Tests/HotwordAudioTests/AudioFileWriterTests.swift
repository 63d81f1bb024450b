import Foundation
import HotwordTestSupport
import Testing
@testable import HotwordAudio

@Suite struct AudioFileWriterTests {
    @Test(arguments: AudioFileWriter.Encoding.allCases, [1, 2])
    func writtenFileDecodesWithSoX(encoding: AudioFileWriter.Encoding, channels: Int) throws {
        let directory = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("tone.wav")
        // Interleaved: the left channel ramps up, the right one down, so a channel swap shows.
        let frames = 1_000
        let samples = (0..<frames * channels).map { index -> Float in
            let value = Float(index / channels) / Float(frames) * 1.8 - 0.9
            return index % channels == 0 ? value : -value
        }

        try AudioFileWriter.writeWAV(samples, to: url, sampleRate: 22_050, channels: channels, encoding: encoding)

        #expect(try SoX.info("-t", of: url) == "wav")
        #expect(try SoX.info("-r", of: url) == "22050")
        #expect(try SoX.info("-c", of: url) == "\(channels)")
        #expect(try SoX.info("-b", of: url) == (encoding == .pcm16 ? "16" : "32"))
        let decoded = try SoX.decode(url)
        #expect(decoded.count == samples.count)
        // SoX passes samples through 32-bit integers, so even float files come back within 1e-7.
        let tolerance: Float = encoding == .pcm16 ? 2.0 / 32_768 : 1e-7
        let worst = zip(decoded, samples).map { abs($0 - $1) }.max() ?? .infinity
        #expect(worst <= tolerance)
    }

    @Test func pcm16ClipsInsteadOfWrapping() throws {
        let directory = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("loud.wav")
        try AudioFileWriter.writeWAV([1.5, -2, 0.25], to: url, sampleRate: 16_000)
        let decoded = try SoX.decode(url)
        #expect(decoded.count == 3)
        #expect(decoded[0] > 0.999 && decoded[1] <= -0.999 && abs(decoded[2] - 0.25) < 1e-4)
    }

    @Test func emptySignalGivesValidEmptyWAV() throws {
        let directory = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("empty.wav")
        try AudioFileWriter.writeWAV([], to: url, sampleRate: 16_000)
        #expect(try SoX.info("-s", of: url) == "0")
    }

    /// Replacing a file leaves the new content under the name and no temporary files beside it.
    @Test func replacesExistingFileLeavingNothingElse() throws {
        let directory = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("clip.wav")
        try AudioFileWriter.writeWAV([Float](repeating: 0.5, count: 100), to: url, sampleRate: 16_000, encoding: .float32)
        try AudioFileWriter.writeWAV([Float](repeating: -0.25, count: 50), to: url, sampleRate: 16_000, encoding: .float32)
        #expect(try SoX.decode(url) == [Float](repeating: -0.25, count: 50))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["clip.wav"])
    }

    /// A failed write keeps the previous file intact and removes its temporary file.
    @Test func failedWriteKeepsOldFile() throws {
        let directory = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("clip.wav")
        try AudioFileWriter.writeWAV([0.5, 0.5], to: url, sampleRate: 16_000)
        let before = try Data(contentsOf: url)

        // Three samples cannot be whole stereo frames.
        let error = #expect(throws: AudioFileError.self) {
            try AudioFileWriter.writeWAV([0.1, 0.2, 0.3], to: url, sampleRate: 16_000, channels: 2)
        }
        #expect(error?.description.contains(url.path) == true)
        #expect(try Data(contentsOf: url) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["clip.wav"])
    }

    /// The rename is the last step; when it fails (here: a directory holds the name) the encoded
    /// temporary file must not stay behind.
    @Test func failedRenameRemovesTemporaryFile() throws {
        let directory = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("taken")
        try FileManager.default.createDirectory(at: url.appendingPathComponent("inside"), withIntermediateDirectories: true)

        let error = #expect(throws: AudioFileError.self) {
            try AudioFileWriter.writeWAV([0.1], to: url, sampleRate: 16_000)
        }
        guard case let .cannotWrite(path, reason) = error else { Issue.record("expected cannotWrite"); return }
        #expect(path == url.path && reason.contains("rename"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["taken"])
    }

    @Test func missingDirectoryNamesThePath() throws {
        let url = URL(fileURLWithPath: "/nonexistent-hotword-dir/clip.wav")
        let error = #expect(throws: AudioFileError.self) {
            try AudioFileWriter.writeWAV([0.1], to: url, sampleRate: 16_000)
        }
        #expect(error?.description.contains(url.path) == true)
        #expect(error?.description.contains("No such file or directory") == true)
    }

    /// /dev/full fails every write with ENOSPC, exactly like a full disk.
    @Test func fullDiskGivesTypedErrorNamingThePath() throws {
        let descriptor = open("/dev/full", O_WRONLY)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        let samples = [Float](repeating: 0.1, count: 100_000)
        let error = #expect(throws: AudioFileError.self) {
            try AudioFileWriter.encodeWAV(samples, sampleRate: 16_000, channels: 1, encoding: .pcm16,
                                          descriptor: descriptor, path: "/data/clip.wav")
        }
        guard case let .cannotWrite(path, reason) = error else { Issue.record("expected cannotWrite"); return }
        #expect(path == "/data/clip.wav")
        #expect(reason.contains("No space left on device"))
    }
}
