import Foundation
import HotwordAudio
import HotwordChildProcess
import HotwordTestSupport
@testable import HotwordTraining
import Testing

/// piper's voices read from their configurations and the voice program's from its list (from
/// bytes and folders, in milliseconds), and both spoken for real where scripts/install-voices.sh
/// has installed them.
@Suite("Neural voices")
struct NeuralVoiceTests {
    static func configuration(_ json: String) throws(SynthesisError) -> PiperVoiceConfiguration {
        try PiperVoiceConfiguration(data: Data(json.utf8), path: "voice.onnx.json")
    }

    /// A folder with empty `.onnx` files and the given configurations.
    static func voiceFolder(_ voices: [String: String]) throws -> URL {
        let folder = try TestPaths.temporaryDirectory("piper-voices")
        for (name, json) in voices {
            try Data().write(to: folder.appendingPathComponent("\(name).onnx"))
            try Data(json.utf8).write(to: folder.appendingPathComponent("\(name).onnx.json"))
        }
        return folder
    }

    @Test func aConfigurationGivesItsSpeakersAndLanguage() throws {
        #expect(try Self.configuration(#"{"num_speakers": 1, "espeak": {"voice": "en-us"}, "audio": {"sample_rate": 22050}}"#)
            == PiperVoiceConfiguration(speakers: 1, language: "en-us"))
        #expect(try Self.configuration(#"{"num_speakers": 109, "language": {"code": "en_GB"}}"#)
            == PiperVoiceConfiguration(speakers: 109, language: "en-gb"), "language.code when there is no espeak voice")
        #expect(try Self.configuration(#"{"espeak": {"voice": "en-gb-x-rp"}}"#).speakers == 1, "one speaker unless it says more")
    }

    @Test func aBadConfigurationIsNamedWithWhatWasExpected() {
        let cases: [(json: String, expected: String)] = [
            ("not json", "not a piper voice configuration"),
            (#"{"num_speakers": 0, "espeak": {"voice": "en-us"}}"#, "num_speakers 0: expected 1 to 10000"),
            (#"{"num_speakers": "two", "espeak": {"voice": "en-us"}}"#, "not a piper voice configuration"),
            (#"{"num_speakers": 2}"#, "no language"),
            (String(repeating: "[", count: 100) + String(repeating: "]", count: 100), "nested more than 16 deep"),
        ]
        for (json, expected) in cases {
            let error = #expect(throws: SynthesisError.self) { try Self.configuration(json) }
            guard case .file(let path, let reason) = error else {
                Issue.record("expected a file error for \(json), got \(String(describing: error))")
                continue
            }
            #expect(path == "voice.onnx.json")
            #expect(reason.contains(expected), "\(json): \(reason)")
        }
    }

    @Test func everySpeakerOfEveryVoiceIsAVoiceOfItsOwn() throws {
        let folder = try Self.voiceFolder([
            "en_US-joe-medium": #"{"num_speakers": 1, "espeak": {"voice": "en-us"}}"#,
            "en_GB-vctk-medium": #"{"num_speakers": 3, "espeak": {"voice": "en-gb-x-rp"}}"#,
        ])
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data().write(to: folder.appendingPathComponent("lonely.onnx"))  // no configuration: not a voice
        let engine = try PiperEngine(executable: URL(fileURLWithPath: "/bin/false"), voiceFolders: [folder],
                                     subprocess: Subprocess())
        #expect(try engine.voices() == [
            Voice(engine: .piper, name: "en_GB-vctk-medium-s0", language: "en-gb-x-rp"),
            Voice(engine: .piper, name: "en_GB-vctk-medium-s1", language: "en-gb-x-rp"),
            Voice(engine: .piper, name: "en_GB-vctk-medium-s2", language: "en-gb-x-rp"),
            Voice(engine: .piper, name: "en_US-joe-medium", language: "en-us"),
        ])
        #expect(try engine.voices().allSatisfy(\.isEnglish))
        let missing = try PiperEngine(executable: URL(fileURLWithPath: "/bin/false"),
                                      voiceFolders: [folder.appendingPathComponent("none")], subprocess: Subprocess())
        #expect(try missing.voices().isEmpty, "a folder that is not there holds no voices")
    }

    @Test func piperAskedForWithoutVoicesNamesTheFolders() throws {
        let folder = try TestPaths.temporaryDirectory("piper")
        defer { try? FileManager.default.removeItem(at: folder) }
        let program = folder.appendingPathComponent("piper")
        try Data("#!/bin/sh\nexit 1\n".utf8).write(to: program)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: program.path)
        var options = SynthesisOptions(phrase: "computer", outputDirectory: folder.appendingPathComponent("clips"))
        options.engines = [.piper]
        options.searchPath = folder.path
        options.piperVoices = [folder.appendingPathComponent("voices")]
        #expect(throws: SynthesisError.noPiperVoices(folders: [folder.appendingPathComponent("voices").path])) {
            try Synthesizer(options: options).run()
        }
    }

    @Test func theVoiceProgramsListIsReadAsUntrusted() throws {
        let voices = try VoiceProgramEngine.voices(listed: "hibari-heart\ten-us\nkokoro-jf_alpha+jm_kumo\tEN-US\n\n", program: "p")
        #expect(voices == [Voice(engine: .voiceProgram, name: "hibari-heart", language: "en-us"),
                           Voice(engine: .voiceProgram, name: "kokoro-jf_alpha+jm_kumo", language: "en-us")])
        for bad in ["no-language", "a\tb\tc", "../../etc/passwd\ten", "name with spaces\ten", String(repeating: "x", count: 65) + "\ten"] {
            let error = #expect(throws: SynthesisError.self) { try VoiceProgramEngine.voices(listed: bad, program: "p") }
            guard case .programFailed(let command, let reason) = error else {
                Issue.record("expected programFailed for \(bad), got \(String(describing: error))")
                continue
            }
            #expect(command == "p --list" && reason.contains("expected NAME<TAB>LANGUAGE"), "\(reason)")
        }
        let many = String(repeating: "v\ten\n", count: VoiceProgramEngine.maximumVoices + 1)
        #expect(throws: SynthesisError.programFailed(command: "p --list", reason: "1001 voices: expected at most 1000")) {
            try VoiceProgramEngine.voices(listed: many, program: "p")
        }
    }

    @Test func aBlendIsAVoiceOfItsOwnInTheReportAnEspeakVariantIsNot() {
        func entry(_ engine: EngineKind, _ voice: String) -> ManifestEntry {
            ManifestEntry(file: nil, kind: .positive, text: "computer", engine: engine, voice: voice, language: "en-us", rate: 1, pitch: 1,
                          levelDB: -6, leadSeconds: 0.1, tailSeconds: 0.1, speechSeconds: nil, kept: false, reason: "failed", rule: nil)
        }
        #expect(SynthesisReport.voiceFamily(entry(.espeakNG, "en-us+m3")) == "espeak-ng en-us")
        #expect(SynthesisReport.voiceFamily(entry(.voiceProgram, "kokoro-jf_alpha+jm_kumo")) == "voice-program kokoro-jf_alpha+jm_kumo")
        #expect(SynthesisReport.voiceFamily(entry(.piper, "en_US-joe-medium")) == "piper en_US-joe-medium")
    }

    /// Four clips of "computer" from the engine, most of them heard by pocketsphinx, each at 16 kHz
    /// and about as long as the rate asked for says.
    static func speak(_ engine: EngineKind, prefix: URL) throws {
        let folder = try TestPaths.temporaryDirectory("synthesize-\(engine.rawValue)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var options = SynthesisOptions(phrase: "computer", outputDirectory: folder)
        options.engines = [engine]
        options.searchPath = prefix.appendingPathComponent("bin").path + ":/usr/bin:/bin"
        options.piperVoices = [prefix.appendingPathComponent("voices")]
        options.maximumClips = 4
        options.jobs = 2
        let report = try Synthesizer(options: options).run()
        #expect(report.entries.count == 4)
        #expect(report.entries.allSatisfy { $0.engine == engine })
        #expect(report.entries.filter(\.kept).count >= 3, "pocketsphinx hears a neural voice's \"computer\": \(report.entries.map { $0.reason ?? "kept" })")
        for entry in report.entries where entry.kept {
            let url = folder.appendingPathComponent(try #require(entry.file))
            let info = try AudioFileReader.info(of: url)
            #expect(info.sampleRate == 16_000 && info.channels == 1)
            let speech = try #require(entry.speechSeconds)
            // "computer" takes about 0.6 s at a voice's own rate; the rate asked for stretches it.
            #expect(speech * entry.rate > 0.35 && speech * entry.rate < 1.1, "\(entry.voice): \(speech) s at rate \(entry.rate)")
        }
    }

    @Test(.enabled(if: NeuralVoicesTestInstallation.prefix != nil, Comment(rawValue: NeuralVoicesTestInstallation.skipReason)))
    func piperSpeaksThePhraseAtTheRateAskedFor() throws {
        try Self.speak(.piper, prefix: try #require(NeuralVoicesTestInstallation.prefix))
    }

    @Test(.enabled(if: NeuralVoicesTestInstallation.prefix != nil, Comment(rawValue: NeuralVoicesTestInstallation.skipReason)))
    func theVoiceProgramSpeaksThePhraseAtTheRateAskedFor() throws {
        try Self.speak(.voiceProgram, prefix: try #require(NeuralVoicesTestInstallation.prefix))
    }
}
