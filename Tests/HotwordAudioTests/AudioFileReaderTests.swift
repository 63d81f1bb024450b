import Foundation
import HotwordTestSupport
import Testing
@testable import HotwordAudio

/// A file to make with SoX and read back.
struct EncodedFileCase: Sendable, CustomTestStringConvertible {
    let fileExtension: String
    let soxOptions: [String]
    let sampleRate: Int
    let channels: Int
    /// Lossy codecs are checked for frequency and level only, lossless ones sample by sample.
    let lossless: Bool
    let formatName: String
    let encodingName: String

    var testDescription: String { "\(fileExtension) \(soxOptions.joined(separator: " ")) \(sampleRate) Hz ×\(channels)" }

    static let all: [EncodedFileCase] = [
        .init(fileExtension: "flac", soxOptions: ["-b", "16"], sampleRate: 8_000, channels: 1, lossless: true,
              formatName: "FLAC", encodingName: "16 bit"),
        .init(fileExtension: "flac", soxOptions: ["-b", "24"], sampleRate: 44_100, channels: 2, lossless: true,
              formatName: "FLAC", encodingName: "24 bit"),
        .init(fileExtension: "ogg", soxOptions: [], sampleRate: 22_050, channels: 1, lossless: false,
              formatName: "OGG", encodingName: "Vorbis"),
        .init(fileExtension: "ogg", soxOptions: [], sampleRate: 48_000, channels: 2, lossless: false,
              formatName: "OGG", encodingName: "Vorbis"),
        .init(fileExtension: "wav", soxOptions: ["-b", "24"], sampleRate: 44_100, channels: 1, lossless: true,
              formatName: "WAV", encodingName: "24 bit"),
        .init(fileExtension: "wav", soxOptions: ["-b", "32", "-e", "signed-integer"], sampleRate: 22_050, channels: 1,
              lossless: true, formatName: "WAV", encodingName: "32 bit"),
        .init(fileExtension: "wav", soxOptions: ["-e", "floating-point", "-b", "32"], sampleRate: 48_000, channels: 2,
              lossless: true, formatName: "WAV", encodingName: "float"),
        .init(fileExtension: "wav", soxOptions: ["-b", "16"], sampleRate: 16_000, channels: 3, lossless: true,
              formatName: "WAV", encodingName: "16 bit"),
    ]
}

@Suite struct AudioFileReaderTests {
    /// Each channel carries the same 1 kHz tone at a different level (0.6, 0.2, -0.1, ...), so the
    /// mono mix is a 1 kHz tone at the mean level; the tone survives any rate from 8 kHz up.
    @Test(arguments: EncodedFileCase.all)
    func readsFormatAsMono16k(_ file: EncodedFileCase) throws {
        let directory = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("tone.\(file.fileExtension)")
        let levels: [Float] = [0.6, 0.2, -0.1].prefix(file.channels).map { $0 }
        let tone = Signals.sine(frequency: 1_000, sampleRate: Double(file.sampleRate), seconds: 1, amplitude: 1)
        let interleaved = tone.flatMap { value in levels.map { $0 * value } }
        try SoX.encode(interleaved, sampleRate: file.sampleRate, channels: file.channels, to: url, options: file.soxOptions)

        let decoded = try AudioFileReader.read(url)

        #expect(decoded.sampleRate == 16_000)
        #expect(decoded.source.sampleRate == file.sampleRate)
        #expect(decoded.source.channels == file.channels)
        #expect(decoded.source.frames == tone.count)
        #expect(decoded.source.formatName.contains(file.formatName))
        #expect(decoded.source.encodingName.contains(file.encodingName))
        #expect(abs(decoded.samples.count - 16_000) <= 2)
        let meanLevel = Double(levels.reduce(0, +)) / Double(levels.count)
        let middle = Signals.middle(decoded.samples)
        #expect(abs(Signals.frequency(of: middle, sampleRate: 16_000) - 1_000) < 0.1)
        #expect(abs(Signals.sineAmplitude(middle) - abs(meanLevel)) < (file.lossless ? 0.002 : 0.03))
        if file.lossless {
            // Sample by sample: decode, mean of channels, then the same sinc conversion.
            let mono = tone.map { Float(meanLevel) * $0 }
            let expected = try Resampler.convert(mono, from: Double(file.sampleRate), to: 16_000)
            let worst = zip(decoded.samples, expected).map { abs($0 - $1) }.max() ?? .infinity
            #expect(worst < 2e-4)
        }
    }

    /// Different signals in the two channels: the mono result is exactly their mean.
    @Test func downmixIsMeanOfDifferentChannels() throws {
        let directory = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("stereo.wav")
        let left = Signals.sine(frequency: 440, sampleRate: 16_000, seconds: 0.5, amplitude: 0.7)
        let right = Signals.sine(frequency: 3_000, sampleRate: 16_000, seconds: 0.5, amplitude: 0.3)
        let interleaved = zip(left, right).flatMap { [$0, $1] }
        try AudioFileWriter.writeWAV(interleaved, to: url, sampleRate: 16_000, channels: 2, encoding: .float32)

        let decoded = try AudioFileReader.read(url)

        #expect(decoded.samples == zip(left, right).map { ($0 + $1) / 2 })
    }

    /// Full-scale float beyond [-1, 1] is clipped to the documented range.
    @Test func floatBeyondFullScaleIsClipped() throws {
        let directory = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("hot.wav")
        try AudioFileWriter.writeWAV([2, -3, 0.5], to: url, sampleRate: 16_000, encoding: .float32)
        #expect(try AudioFileReader.read(url).samples == [1, -1, 0.5])
    }

    /// A real recording from the data set, checked against SoX's decoding of the same file.
    @Test func readsRealKeywordClip() throws {
        let url = TestPaths.sharedData.appendingPathComponent("keywords/alexa/0.flac")
        let decoded = try AudioFileReader.read(url)
        #expect(decoded.source == AudioFileInfo(sampleRate: 16_000, channels: 1, frames: 52_800,
                                                formatName: "FLAC (Free Lossless Audio Codec)",
                                                encodingName: "Signed 16 bit PCM"))
        #expect(decoded.samples.count == 52_800)
        #expect(decoded.samples == (try SoX.decode(url)))
        #expect(Signals.sineAmplitude(decoded.samples[...]) > 0.01)  // there is speech, not silence
        #expect(try AudioFileReader.info(of: url) == decoded.source)
    }

    @Test func emptyWAVGivesNoSamples() throws {
        let directory = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("empty.wav")
        try AudioFileWriter.writeWAV([], to: url, sampleRate: 44_100)
        let decoded = try AudioFileReader.read(url)
        #expect(decoded.samples.isEmpty)
        #expect(decoded.source.frames == 0 && decoded.source.sampleRate == 44_100)
    }

    @Test func missingFile() throws {
        let path = "/nonexistent-hotword-dir/clip.wav"
        try expectError(reading: URL(fileURLWithPath: path), is: { if case .missing = $0 { true } else { false } })
    }

    @Test func directoryIsUnreadable() throws {
        let directory = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let error = try expectError(reading: directory, is: { if case .unreadable = $0 { true } else { false } })
        #expect(error.description.contains("Is a directory"))
    }

    /// Reading /proc/self/mem at offset 0 fails with EIO: a real I/O error without faulty hardware.
    @Test func ioErrorIsUnreadable() throws {
        let error = try expectError(reading: URL(fileURLWithPath: "/proc/self/mem"),
                                    is: { if case .unreadable = $0 { true } else { false } })
        #expect(error.description.contains("Input/output error"))
    }

    /// Root reads regardless of permissions, so this runs only for ordinary users (as in CI).
    @Test(.enabled(if: geteuid() != 0, "root ignores file permissions"))
    func permissionDeniedIsUnreadable() throws {
        let directory = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("locked.wav")
        try AudioFileWriter.writeWAV([0.1], to: url, sampleRate: 16_000)
        try FileManager.default.setAttributes([.posixPermissions: 0], ofItemAtPath: url.path)
        let error = try expectError(reading: url, is: { if case .unreadable = $0 { true } else { false } })
        #expect(error.description.contains("Permission denied"))
    }

    @Test func randomBytesAreNotAudio() throws {
        let directory = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("noise.wav")
        var generator = SeededGenerator(seed: 3)
        try Data((0..<10_000).map { _ in UInt8.random(in: 0...255, using: &generator) }).write(to: url)
        try expectError(reading: url, is: { if case .notAudio = $0 { true } else { false } })
    }

    @Test func zeroByteFileIsNotAudio() throws {
        let directory = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("nothing.flac")
        try Data().write(to: url)
        try expectError(reading: url, is: { if case .notAudio = $0 { true } else { false } })
    }

    /// libsndfile itself refuses a WAV header declaring zero channels, so this is "not audio"
    /// (with libsndfile's reason), not something it could open and we then turn down.
    @Test func zeroChannelHeaderIsRejected() throws {
        let directory = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("nochannels.wav")
        try wavHeader(channels: 0, sampleRate: 16_000, dataBytes: 8).write(to: url)
        let error = try expectError(reading: url, is: { if case .notAudio = $0 { true } else { false } })
        #expect(error.description.contains("hannel"))
    }

    @Test(arguments: [500, 400_000])
    func rateOutsideAcceptedRangeIsUnsupported(sampleRate: Int) throws {
        let directory = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("odd-rate.wav")
        try AudioFileWriter.writeWAV([0.1, 0.2], to: url, sampleRate: sampleRate)
        let error = try expectError(reading: url, is: { if case .unsupported = $0 { true } else { false } })
        #expect(error.description.contains("\(sampleRate) Hz"))
    }

    /// Checks the case and that the message names the file, for `read` and `info(of:)` alike.
    @discardableResult
    private func expectError(reading url: URL, is matches: (AudioFileError) -> Bool,
                             sourceLocation: SourceLocation = #_sourceLocation) throws -> AudioFileError {
        let error = try #require(throws: AudioFileError.self, sourceLocation: sourceLocation) {
            _ = try AudioFileReader.read(url)
        }
        #expect(matches(error), "unexpected \(error)", sourceLocation: sourceLocation)
        #expect(error.path == url.path && error.description.contains(url.path), sourceLocation: sourceLocation)
        let infoError = try #require(throws: AudioFileError.self, sourceLocation: sourceLocation) {
            _ = try AudioFileReader.info(of: url)
        }
        #expect(infoError == error, sourceLocation: sourceLocation)
        return error
    }

    /// A canonical 16-bit PCM WAV header, for headers our writer (rightly) refuses to produce.
    private func wavHeader(channels: UInt16, sampleRate: UInt32, dataBytes: UInt32) -> Data {
        var data = Data()
        func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        let blockAlign = UInt16(2) * max(channels, 1)
        data.append(contentsOf: Array("RIFF".utf8)); append(UInt32(36 + dataBytes))
        data.append(contentsOf: Array("WAVEfmt ".utf8)); append(UInt32(16))
        append(UInt16(1)); append(channels); append(sampleRate)
        append(sampleRate * UInt32(blockAlign)); append(blockAlign); append(UInt16(16))
        data.append(contentsOf: Array("data".utf8)); append(dataBytes)
        data.append(Data(count: Int(dataBytes)))
        return data
    }
}
