import Foundation
import HotwordAudio
import HotwordTestSupport
import Testing

/// `hotword say` and `hotword transcribe` with the real engines.
@Suite("hotword say / transcribe")
struct SpeechCommandTests {
    private func rms(_ samples: [Float]) -> Float {
        guard !samples.isEmpty else { return 0 }
        return (samples.reduce(0) { $0 + $1 * $1 } / Float(samples.count)).squareRoot()
    }

    @Test func sayWritesAudibleSpeechToAWAVFile() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let wav = folder.appendingPathComponent("speech.wav")
        let result = try await HotwordBinary.run(["say", "what is the weather in berlin", "--out", wav.path])
        #expect(result.status == 0, "\(result.stderr)")
        let info = try AudioFileReader.info(of: wav)
        #expect(info.sampleRate == 22_050 && info.channels == 1 && info.encodingName.contains("16"))
        #expect((1.0...4.0).contains(info.duration), "duration \(info.duration) s")
        #expect(rms(try AudioFileReader.read(wav, sampleRate: info.sampleRate).samples) > 0.02)
    }

    @Test func sayPlaysThroughAnALSADevice() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let played = folder.appendingPathComponent("played.raw")
        let result = try await HotwordBinary.run(["say", "tell me a joke", "--playback-device", ALSATestDevices.playback(into: played)])
        #expect(result.status == 0, "\(result.stderr)")
        let samples = ALSATestDevices.samples(ofRaw: try Data(contentsOf: played)).map { Float($0) / 32768 }
        // Opened at espeak-ng's 22 050 Hz (the file plugin accepts any rate): about a second of speech.
        #expect((0.5...3.0).contains(Double(samples.count) / 22_050), "\(samples.count) samples")
        #expect(rms(samples) > 0.02)
    }

    /// Every command calls the loudspeaker --playback-device and worker threads --threads; the
    /// old names still work but are no longer shown.
    @Test func oldOptionNamesStillWorkButAreNotShown() async throws {
        let say = try await HotwordBinary.run(["say", "--help"]), synthesize = try await HotwordBinary.run(["synthesize", "--help"])
        #expect(say.stdout.contains("--playback-device") && !say.stdout.contains("--device"), "\(say.stdout)")
        #expect(synthesize.stdout.contains("--threads") && !synthesize.stdout.contains("--jobs"), "\(synthesize.stdout)")
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let played = folder.appendingPathComponent("played.raw")
        let result = try await HotwordBinary.run(["say", "hello", "--device", ALSATestDevices.playback(into: played)])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Data(contentsOf: played).count > 10_000)
    }

    @Test func sayNamesAnUnknownVoice() async throws {
        let result = try await HotwordBinary.run(["say", "hello", "--voice", "xx-none", "--out", "/dev/null"])
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("Error: --voice xx-none: espeak-ng has no such voice"), "\(result.stderr)")
    }

    @Test func transcribePrintsWhatPocketsphinxHearsInEachFile() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let weather = folder.appendingPathComponent("weather.wav"), name = folder.appendingPathComponent("name.wav")
        for (text, file) in [("what is the weather like today", weather), ("what is your name", name)] {
            let said = try await HotwordBinary.run(["say", text, "--voice", "en-us+klatt4", "--out", file.path])
            try #require(said.status == 0, "\(said.stderr)")
        }
        let one = try await HotwordBinary.run(["transcribe", weather.path])
        #expect(one.status == 0, "\(one.stderr)")
        #expect(one.stdout.split(separator: " ").contains("weather"), "\(one.stdout)")

        let both = try await HotwordBinary.run(["transcribe", weather.path, name.path])
        let lines = both.stdout.split(separator: "\n")
        try #require(lines.count == 2, "\(both.stdout)")
        #expect(lines[0].hasPrefix("\(weather.path): ") && lines[0].contains("weather"))
        #expect(lines[1].hasPrefix("\(name.path): ") && lines[1].contains("name"))
    }

    @Test func transcribeRunsAConfiguredProgram() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let wav = folder.appendingPathComponent("silence.wav")
        try AudioFileWriter.writeWAV([Float](repeating: 0, count: 16_000), to: wav, sampleRate: 16_000)
        let script = folder.appendingPathComponent("stt").path
        let descriptor = open(script, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o755)
        try #require(descriptor >= 0)
        let body = Array("#!/bin/sh\necho \"$1 got $(wc -c < \"$2\") bytes\"\n".utf8)
        _ = write(descriptor, body, body.count)
        close(descriptor)

        let result = try await HotwordBinary.run(["transcribe", wav.path, "--backend", "command", "--command", "\(script) -f {wav}"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "-f got \(44 + 2 * 16_000) bytes\n")
    }

    @Test func transcribeReportsABadFileAndGoesOn() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let silence = folder.appendingPathComponent("silence.wav")
        try AudioFileWriter.writeWAV([Float](repeating: 0, count: 16_000), to: silence, sampleRate: 16_000)
        let missing = folder.appendingPathComponent("missing.wav")

        let result = try await HotwordBinary.run(["transcribe", missing.path, silence.path])
        #expect(result.status == 1)
        #expect(result.stdout == "\(silence.path): \n")
        #expect(result.stderr.contains(missing.path), "\(result.stderr)")
    }

    /// Writes an executable shell script `name` with `body` into `folder`.
    private func script(_ name: String, in folder: URL, _ body: String) throws -> String {
        let path = folder.appendingPathComponent(name).path
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o755)
        try #require(descriptor >= 0)
        let text = Array("#!/bin/sh\n\(body)\n".utf8)
        _ = write(descriptor, text, text.count)
        close(descriptor)
        return path
    }

    @Test func transcribeUsesTheConfiguredEngineUnderTheOptionsGiven() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let wav = folder.appendingPathComponent("silence.wav")
        try AudioFileWriter.writeWAV([Float](repeating: 0, count: 16_000), to: wav, sampleRate: 16_000)
        let configured = try script("configured", in: folder, "echo configured engine")
        let given = try script("given", in: folder, "echo given engine")
        let config = folder.appendingPathComponent("hotword.toml")
        try """
            [stt]
            backend = "command"
            [stt.command]
            arguments = ["\(configured)", "{wav}"]
            """.write(to: config, atomically: true, encoding: .utf8)

        let fromFile = try await HotwordBinary.run(["transcribe", wav.path, "--config", config.path])
        let overridden = try await HotwordBinary.run(["transcribe", wav.path, "--config", config.path, "--command", "\(given) {wav}"])
        #expect(fromFile.status == 0 && overridden.status == 0, "\(fromFile.stderr) \(overridden.stderr)")
        #expect(fromFile.stdout == "configured engine\n")
        #expect(overridden.stdout == "given engine\n")
    }

    @Test func sayUsesTheConfiguredVoiceAndLoudspeakerUnderTheOptionsGiven() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let played = folder.appendingPathComponent("played.raw")
        let config = folder.appendingPathComponent("hotword.toml")
        try """
            [audio]
            playback_device = '\(ALSATestDevices.playback(into: played))'
            [tts.espeak]
            voice = "xx-none"
            """.write(to: config, atomically: true, encoding: .utf8)

        let configuredVoice = try await HotwordBinary.run(["say", "hello", "--config", config.path])
        #expect(configuredVoice.status == 78)
        #expect(configuredVoice.stderr == "Error: tts.espeak.voice = \"xx-none\": espeak-ng has no such voice (`espeak-ng --voices` lists them)\n")
        let givenVoice = try await HotwordBinary.run(["say", "hello", "--config", config.path, "--voice", "en-us"])
        #expect(givenVoice.status == 0, "\(givenVoice.stderr)")
        #expect(try Data(contentsOf: played).count > 10_000, "played on the configured loudspeaker")
    }

    @Test func aBrokenConfigurationStopsSayAndTranscribe() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = folder.appendingPathComponent("hotword.toml")
        try "[tts]\nbackend = \"loud\"\n".write(to: config, atomically: true, encoding: .utf8)
        for command in [["say", "hello", "--out", "/dev/null"], ["transcribe", config.path]] {
            let result = try await HotwordBinary.run(command + ["--config", config.path])
            #expect(result.status == 78, "\(command[0]): \(result.stderr)")
            #expect(result.stderr.contains("tts.backend"), "\(result.stderr)")
        }
    }

    /// A folder with a reference list of two one-second WAVs, and an engine (a program) that hears
    /// "the cat sit on mat" in anything.
    private func referenceList(_ lines: String) throws -> (folder: URL, list: String, engine: [String]) {
        let folder = try TestPaths.temporaryDirectory()
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("clips"), withIntermediateDirectories: true)
        for name in ["clips/a.wav", "b.wav"] {
            try AudioFileWriter.writeWAV([Float](repeating: 0, count: 16_000), to: folder.appendingPathComponent(name), sampleRate: 16_000)
        }
        let list = folder.appendingPathComponent("transcripts.tsv")
        try lines.write(to: list, atomically: true, encoding: .utf8)
        let engine = try script("stt", in: folder, "echo 'The cat sit on mat.'")
        return (folder, list.path, ["--backend", "command", "--command", "\(engine) {wav}"])
    }

    @Test func transcribeScoresAReferenceListPerFileAndInTotal() async throws {
        let (folder, list, engine) = try referenceList("file\ttext\nclips/a.wav\tThe cat sat on the mat.\nb.wav\tthe cat sit on mat\n")
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try await HotwordBinary.run(["transcribe", "--reference", list] + engine)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
        try #require(lines.count == 3, "\(result.stdout)")
        #expect(lines[0] == ["clips/a.wav", "WER 33.3 %", "S 1 D 1 I 0 of 6", "The cat sit on mat."])
        #expect(lines[1] == ["b.wav", "WER 0.0 %", "S 0 D 0 I 0 of 5", "The cat sit on mat."])
        #expect(lines[2].prefix(3) == ["total", "WER 18.2 %", "S 1 D 1 I 0 of 11"], "\(lines[2])")
        #expect(lines[2][3].hasPrefix("2 files, 2.0 s of audio in "), "\(lines[2])")

        let json = try await HotwordBinary.run(["transcribe", "--reference", list, "--first", "1", "--json"] + engine)
        #expect(json.status == 0, "\(json.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let total = try #require(object["total"] as? [String: Any])
        #expect(total["files"] as? Int == 1 && total["substitutions"] as? Int == 1 && total["deletions"] as? Int == 1)
        #expect(total["insertions"] as? Int == 0 && total["reference_words"] as? Int == 6 && total["wer"] as? Double == 0.3333)
        #expect(total["audio_seconds"] as? Double == 1 && total["real_time_factor"] != nil)
        let files = try #require(object["files"] as? [[String: Any]])
        #expect(files.count == 1 && files[0]["file"] as? String == "clips/a.wav" && files[0]["transcript"] as? String == "The cat sit on mat.")
        #expect(files[0]["reference"] as? String == "The cat sat on the mat." && files[0]["transcribing_seconds"] != nil)
    }

    @Test func aWrongLineOfTheReferenceListIsNamedBeforeAnythingIsTranscribed() async throws {
        let (folder, list, engine) = try referenceList("clips/a.wav\tthe cat\nb.wav the cat\n")
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try await HotwordBinary.run(["transcribe", "--reference", list] + engine)
        #expect(result.status == 78)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "Error: \(list):2: no tab: expected file<TAB>text\n")
        let missing = try await HotwordBinary.run(["transcribe", "--reference", folder.appendingPathComponent("none.tsv").path] + engine)
        #expect(missing.status == 78 && missing.stderr.hasPrefix("Error: cannot read the reference list "), "\(missing.stderr)")
        let both = try await HotwordBinary.run(["transcribe", "x.wav", "--reference", list])
        #expect(both.status == 64, "\(both.stderr)")
    }

    @Test func aReferencedFileThatCannotBeReadIsNamedAndLeftOutOfTheTotal() async throws {
        let (folder, list, engine) = try referenceList("missing.wav\tthe cat\nb.wav\tthe cat sit on mat\n")
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try await HotwordBinary.run(["transcribe", "--reference", list] + engine)
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("Error: \(list):1: ") && result.stderr.contains("missing.wav"), "\(result.stderr)")
        #expect(result.stdout.contains("total\tWER 0.0 %\tS 0 D 0 I 0 of 5\t1 files") && result.stdout.contains("1 failed, not counted"), "\(result.stdout)")
    }
}
