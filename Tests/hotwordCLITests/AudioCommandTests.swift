import Foundation
import HotwordTestSupport
import Testing

/// `hotword devices` and `hotword record` against the ALSA test devices (the binary inherits
/// ALSA_CONFIG_PATH from this process).
@Suite("hotword devices and record")
struct AudioCommandTests {
    @Test func devicesListsCaptureAndPlaybackDevicesInTheirOwnSections() async throws {
        _ = ALSATestDevices.configPath
        let result = try await HotwordBinary.run(["devices"])
        #expect(result.status == 0)
        let sections = result.stdout.components(separatedBy: "Playback devices:\n")
        try #require(sections.count == 2)
        let capture = sections[0], playback = sections[1]
        #expect(capture.hasPrefix("Capture devices:\n"))
        #expect(capture.contains("\n  \(ALSATestDevices.captureName)\n      hotword test microphone replaying a raw file\n"))
        #expect(capture.contains("\n  \(ALSATestDevices.stereoCaptureName)\n"))
        #expect(!capture.contains(ALSATestDevices.playbackName))
        #expect(playback.contains("\n  \(ALSATestDevices.playbackName)\n      hotword test loudspeaker writing a raw file\n"))
        #expect(!playback.contains(ALSATestDevices.captureName))
    }

    @Test func recordWritesA16kHzMono16BitWAVWithTheCapturedSamples() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        // Extremes, then a scramble of the whole 16-bit range.
        let input = [Int16.min, Int16.max] + (2..<16_000).map { Int16(truncatingIfNeeded: $0 &* 40_503) }
        let source = folder.appendingPathComponent("microphone.raw")
        try ALSATestDevices.rawData(input).write(to: source)
        let output = folder.appendingPathComponent("recording.wav")

        let result = try await HotwordBinary.run(["record", output.path, "--seconds", "0.75",
                                                  "--device", ALSATestDevices.capture(replaying: source)])

        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.hasPrefix("recorded 0.75 s from '\(ALSATestDevices.captureName)"))
        let wav = try WAV(Data(contentsOf: output))
        #expect(wav.format == 1 && wav.channels == 1 && wav.sampleRate == 16_000 && wav.bitsPerSample == 16)
        #expect(wav.samples == Array(input[..<12_000]))
        #expect(!result.stderr.contains("nothing was heard"))
    }

    @Test func recordingSilenceIsSaid() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("muted.raw")
        try ALSATestDevices.rawData([Int16](repeating: 3, count: 8_000)).write(to: source)
        let output = folder.appendingPathComponent("recording.wav")
        let result = try await HotwordBinary.run(["record", output.path, "--seconds", "0.25",
                                                  "--device", ALSATestDevices.capture(replaying: source)])
        #expect(result.status == 0)
        #expect(result.stderr.contains("\n(nothing was heard: every sample is below -60 dBFS;"), "\(result.stderr)")
    }

    @Test func recordFromAnUnknownDeviceFailsWithOneClearLine() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = ALSATestDevices.configPath
        let output = folder.appendingPathComponent("never.wav")

        let result = try await HotwordBinary.run(["record", output.path, "--seconds", "1", "--device", ALSATestDevices.missingName])

        #expect(result.status != 0)
        #expect(result.stdout == "")
        #expect(result.stderr == "Error: capture device '\(ALSATestDevices.missingName)' could not be opened: "
            + "No such file or directory — list devices with `hotword devices` and choose one with --device NAME\n")
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }
}

/// The parts of a PCM WAV file the tests check.
private struct WAV {
    var format = 0, channels = 0, sampleRate = 0, bitsPerSample = 0
    var samples: [Int16] = []

    struct Malformed: Error {}

    init(_ data: Data) throws {
        let bytes = [UInt8](data)
        func integer(_ offset: Int, _ size: Int) -> Int {
            (0..<size).reduce(0) { $0 | Int(bytes[offset + $1]) << (8 * $1) }
        }
        guard bytes.count >= 12, bytes[0..<4] == Array("RIFF".utf8)[...], bytes[8..<12] == Array("WAVE".utf8)[...] else { throw Malformed() }
        var offset = 12
        while offset + 8 <= bytes.count {
            let id = String(decoding: bytes[offset..<(offset + 4)], as: UTF8.self)
            let size = integer(offset + 4, 4)
            let body = offset + 8
            guard body + size <= bytes.count else { throw Malformed() }
            if id == "fmt " {
                format = integer(body, 2)
                channels = integer(body + 2, 2)
                sampleRate = integer(body + 4, 4)
                bitsPerSample = integer(body + 14, 2)
            } else if id == "data" {
                samples = stride(from: body, to: body + size - 1, by: 2).map { Int16(truncatingIfNeeded: integer($0, 2)) }
            }
            offset = body + size + size % 2
        }
    }
}
