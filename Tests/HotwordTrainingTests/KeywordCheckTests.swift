import Foundation
import HotwordAudio
import HotwordTestSupport
import HotwordTraining
import Testing

/// The pocketsphinx keyword check on real speech from flite and on clips nobody would hear the phrase in.
@Suite("pocketsphinx keyword check")
struct KeywordCheckTests {
    /// `text` spoken by flite's slt voice, at 16 kHz.
    static func flite(_ text: String) throws -> [Float] {
        let folder = try TestPaths.temporaryDirectory("flite")
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("speech.wav")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/flite")
        process.arguments = ["-voice", "slt", "-t", text, "-o", output.path]
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0)
        return try AudioFileReader.read(output).samples
    }

    static func padded(_ speech: [Float]) -> [Float] {
        [Float](repeating: 0, count: 4_000) + speech + [Float](repeating: 0, count: 4_000)
    }

    @Test func keepsClearlySpokenPhrasesAndDropsSilenceNoiseAndOtherWords() throws {
        let computer = Self.padded(try Self.flite("computer"))
        var random = SeededGenerator(seed: 3)
        let noise = random.floats(16_000, scale: 0.3)
        let clips = [
            computer,
            Self.padded(try Self.flite("hello there")),
            [Float](repeating: 0, count: 16_000),
            noise,
            Array(computer.reversed()),
            Self.padded(try Self.flite("banana")),
        ]
        let heard = try KeywordCheck(phrase: "computer").hears(clips, jobs: 2)
        #expect(heard == [true, false, false, false, false, false])
    }

    @Test func multiWordPhrasesAndQuietClipsAreHeard() throws {
        let quiet = Self.padded(try Self.flite("hey susi").map { $0 * 0.01 })
        let heard = try KeywordCheck(phrase: "Hey, Susi!").hears([quiet, Self.padded(try Self.flite("jarvis"))])
        #expect(heard == [true, false])
    }

    @Test func aStricterThresholdHearsLess() throws {
        let clip = Self.padded(try Self.flite("alexa"))
        #expect(try KeywordCheck(phrase: "alexa").hears([clip]) == [true])
        #expect(try KeywordCheck(phrase: "alexa", thresholdPerPhone: 1e10).hears([clip]) == [false])
    }
}
