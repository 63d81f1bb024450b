import Foundation
import HotwordAudio
import HotwordTestSupport
import Testing

/// `hotword run` end to end: speech into a real ALSA capture device (the file plugin reading a
/// FIFO, paced at 4× real time), the shipped wake-word model, pocketsphinx, the local SUSI test
/// server, espeak-ng into a real ALSA playback device (the file plugin writing a file).
@Suite("hotword run")
struct RunCommandTests {
    /// The voice pocketsphinx recognises best, as in the speech tests.
    static let voice = "en-us+klatt4"
    static let modelHelp = """
        hotword run needs the wake-word model hey_susi: the shipped Models/hey_susi.hwks, or a \
        folder holding a hey_susi.hwks in HOTWORD_MODELS
        """

    /// 16 kHz speech of `text` by espeak-ng, made with `hotword say`.
    static func speech(_ text: String, in folder: URL) async throws -> [Float] {
        let wav = folder.appendingPathComponent("speech-\(UUID().uuidString).wav")
        let result = try await HotwordBinary.run(["say", text, "--voice", voice, "--out", wav.path])
        try #require(result.status == 0, "hotword say: \(result.stderr)")
        return try AudioFileReader.read(wav).samples
    }

    static func silence(_ seconds: Double) -> [Float] {
        [Float](repeating: 0, count: Int(seconds * 16_000))
    }

    /// A configuration for the test devices and server (TOML literal strings: device names hold quotes).
    static func configuration(in folder: URL, microphone: String, loudspeaker: String, server: URL,
                              susiTimeoutSeconds: Int = 5, extra: String = "") throws -> URL {
        let file = folder.appendingPathComponent("hotword.toml")
        try Data("""
            [audio]
            capture_device = '\(microphone)'
            playback_device = '\(loudspeaker)'
            playback_rate = 16000
            [susi]
            server = '\(server.absoluteString)'
            retries = 0
            timeout_s = \(susiTimeoutSeconds)
            \(extra)
            """.utf8).write(to: file)
        return file
    }

    /// The JSON events among `lines`.
    static func events(_ lines: [String]) -> [[String: Any]] {
        lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    static func requireModel(_ stderr: String, sourceLocation: SourceLocation = #_sourceLocation) {
        if stderr.contains("no model named 'hey_susi'") {
            Issue.record(Comment(rawValue: modelHelp), sourceLocation: sourceLocation)
        }
    }

    @Test func aQuestionAfterTheWakeWordIsAskedPrintedAndSpoken() async throws {
        _ = ALSATestDevices.configPath
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try SUSITestServer(fallback: .answer("It is sunny and warm in Berlin today."))
        defer { server.shutdown() }
        let microphone = try PacedMicrophone(folder: folder)
        defer { microphone.close() }
        let played = folder.appendingPathComponent("played.raw")
        let config = try Self.configuration(in: folder, microphone: microphone.deviceName,
                                            loudspeaker: ALSATestDevices.playback(into: played), server: server.baseURL)
        // The detector needs a couple of seconds of audio before it can hear anything.
        microphone.say(Self.silence(2.5) + (try await Self.speech("hey susi, what is the weather like today", in: folder)))

        let assistant = try RunningHotword(["run", "--config", config.path, "--json"])
        let answered = await assistant.waitForLine { $0.contains(#""event":"answer""#) }
        let listening = await assistant.waitForLine(timeout: .seconds(20)) { _ in
            Self.events(assistant.lines).filter { $0["state"] as? String == "listening" }.count >= 2
        }
        if assistant.isRunning { try await microphone.waitUntilSaid(margin: .seconds(2)) }  // more audio: no second wake
        let (status, stderr) = await assistant.stop()

        Self.requireModel(stderr)
        #expect(answered && listening, "stdout: \(assistant.lines)\nstderr: \(stderr)")
        #expect(status == 0)
        let events = Self.events(assistant.lines)
        #expect(events.count == assistant.lines.count, "every line is a JSON event")
        let wakes = events.filter { $0["event"] as? String == "wake" }
        #expect(wakes.count == 1)
        #expect(wakes.first?["keyword"] as? String == "hey susi")
        // At the end of "hey susi", 2.5 s of silence in (plus the few chunks of silence the
        // microphone wrote before the speech was queued).
        let wakeTime = wakes.first?["time"] as? Double ?? 0
        #expect((3.0...3.5).contains(wakeTime), "woke at \(wakeTime) s")
        let questionTime = events.first { $0["event"] as? String == "utterance_start" }?["time"] as? Double ?? 0
        #expect(questionTime > wakeTime && questionTime < wakeTime + 0.6, "question at \(questionTime) s")
        let transcript = try #require(events.first { $0["event"] as? String == "transcript" }?["text"] as? String)
        #expect(transcript.split(separator: " ").contains("weather"), "heard \"\(transcript)\"")
        #expect(server.chatRequests.count == 1)
        #expect(server.chatRequests.first?.query("q") == transcript)
        #expect(events.contains { $0["event"] as? String == "answer" && $0["text"] as? String == "It is sunny and warm in Berlin today." })
        let states = events.compactMap { $0["state"] as? String }
        #expect(states == ["listening", "recording", "transcribing", "asking", "speaking", "listening"])
        // The cue and the spoken answer went to the loudspeaker, at 16 kHz.
        let samples = ALSATestDevices.samples(ofRaw: try Data(contentsOf: played)).map { Float($0) / 32768 }
        let seconds = Double(samples.count) / 16_000
        #expect((1.5...6).contains(seconds), "played \(seconds) s")
        let rms = (samples.reduce(0) { $0 + $1 * $1 } / Float(max(samples.count, 1))).squareRoot()
        #expect(rms > 0.02, "rms \(rms)")
    }

    @Test func speechWithoutTheWakeWordAsksNothing() async throws {
        _ = ALSATestDevices.configPath
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try SUSITestServer()
        defer { server.shutdown() }
        let microphone = try PacedMicrophone(folder: folder)
        defer { microphone.close() }
        let played = folder.appendingPathComponent("played.raw")
        let config = try Self.configuration(in: folder, microphone: microphone.deviceName,
                                            loudspeaker: ALSATestDevices.playback(into: played), server: server.baseURL)
        microphone.say(Self.silence(2.5) + (try await Self.speech("what is the weather like today", in: folder))
            + Self.silence(0.5) + (try await Self.speech("play some music, please", in: folder)))

        let assistant = try RunningHotword(["run", "--config", config.path])
        try await Task.sleep(for: .seconds(1))
        if assistant.isRunning { try await microphone.waitUntilSaid(margin: .seconds(2)) }
        let (status, stderr) = await assistant.stop()

        Self.requireModel(stderr)
        #expect(status == 0, "\(stderr)")
        #expect(assistant.lines == [])
        #expect(server.requests.isEmpty)
        #expect(stderr.contains("state: listening") && !stderr.contains("wake word"))
        #expect((try? Data(contentsOf: played))?.isEmpty ?? true, "nothing played")
    }

    @Test func anUnreachableServerIsApologisedForAndListeningGoesOn() async throws {
        _ = ALSATestDevices.configPath
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let microphone = try PacedMicrophone(folder: folder)
        defer { microphone.close() }
        let played = folder.appendingPathComponent("played.raw")
        let config = try Self.configuration(in: folder, microphone: microphone.deviceName,
                                            loudspeaker: ALSATestDevices.playback(into: played),
                                            server: URL(string: "http://127.0.0.1:1")!)
        microphone.say(Self.silence(2.5) + (try await Self.speech("hey susi, what time is it", in: folder)))

        let assistant = try RunningHotword(["run", "--config", config.path, "--no-cue"])
        let apologised = await assistant.waitForLine { $0.hasPrefix("SUSI: ") }
        // Spoken too (after it was printed), without a cue before it.
        let deadline = ContinuousClock.now + .seconds(20)
        while ((try? Data(contentsOf: played))?.count ?? 0) < 32_000, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        let (status, stderr) = await assistant.stop()

        Self.requireModel(stderr)
        #expect(apologised, "stdout: \(assistant.lines)\nstderr: \(stderr)")
        #expect(status == 0)
        #expect(assistant.lines.count == 2)
        #expect(assistant.lines.first?.hasPrefix("You: ") == true)
        #expect(assistant.lines.last == "SUSI: I can't reach SUSI right now.")
        #expect(stderr.contains("error hotword.assistant: [HotwordAssistant] ask: SUSI server unreachable"))
        #expect(ALSATestDevices.samples(ofRaw: try Data(contentsOf: played)).count >= 16_000)
    }

    @Test func withoutACaptureDeviceItSaysSoInOneLine() async throws {
        _ = ALSATestDevices.configPath
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = folder.appendingPathComponent("hotword.toml")
        try Data("[audio]\ncapture_device = \"from_the_file\"\n".utf8).write(to: config)

        // --device wins over the file.
        let result = try await HotwordBinary.run(["run", "--config", config.path, "--device", ALSATestDevices.missingName])

        #expect(result.status == 78)
        #expect(result.stdout == "")
        #expect(result.stderr == "Error: capture device '\(ALSATestDevices.missingName)' could not be opened: No such file or directory"
            + " — list devices with `hotword devices` and choose one with --device NAME or capture_device in [audio] of hotword.toml\n")
    }

    /// What `run --help`, the README and the model cards tell users to type is taken: with these
    /// options `run` gets as far as the microphone.
    @Test func theDocumentedSensitivityAndPhraseCheckOptionsAreTaken() async throws {
        _ = ALSATestDevices.configPath
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = folder.appendingPathComponent("hotword.toml")
        try Data().write(to: config)
        let start = ["run", "--config", config.path, "--device", ALSATestDevices.missingName]
        for options in [["--sensitivity", "hey_susi=0.8"], ["--sensitivity", "hey susi=0.8", "--no-check-phrase"],
                        ["--sensitivity", "0.7"], ["--check-phrase"]] {
            let result = try await HotwordBinary.run(start + options)
            #expect(result.status == 78 && result.stderr.hasPrefix("Error: capture device"), "\(options): \(result.stderr)")
        }
        let unknown = try await HotwordBinary.run(start + ["--sensitivity", "hey_jude=0.8"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.hasPrefix("Error: --sensitivity 'hey_jude=0.8': no keyword 'hey_jude' in the models loaded ('hey susi')\nUsage: hotword run "),
                "\(unknown.stderr)")
    }

    @Test func aBrokenConfigurationIsReportedBeforeAnythingStarts() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = folder.appendingPathComponent("hotword.toml")
        try Data("[recording]\nmax_lenght_s = 5\n".utf8).write(to: config)
        let result = try await HotwordBinary.run(["run", "--config", config.path])
        #expect(result.status == 78)
        #expect(result.stderr == "Error: \(config.path):2: unknown key 'recording.max_lenght_s' (did you mean 'max_length_s'?)\n")
    }
}

@Suite("hotword config check")
struct ConfigCheckCommandTests {
    @Test func problemsAreListedWithTheirLinesAndExitStatus78() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = folder.appendingPathComponent("hotword.toml")
        try Data("""
            [audio]
            volume = 120
            [wake]
            sensitivty = 0.4
            models = ["hey_susi", "computr"]
            [wake.keywords.hey_susi]
            sensitivity = 0.6
            [wake.keywords."hey jude"]
            sensitivity = 0.6
            """.utf8).write(to: config)
        let result = try await HotwordBinary.run(["config", "check", config.path])
        #expect(result.status == 78)
        #expect(result.stdout == "")
        let lines = result.stderr.split(separator: "\n").map(String.init)
        try #require(lines.count == 5, "\(result.stderr)")
        #expect(Array(lines[..<3]) == [
            "Error: 4 problems in the configuration:",
            "\(config.path):2: audio.volume = 120 is invalid: expected a whole number from 0 to 100 percent",
            "\(config.path):4: unknown key 'wake.sensitivty' (did you mean 'sensitivity'?)",
        ])
        // The models are checked even with other problems in the file, and a misspelt one named.
        #expect(lines[3].hasPrefix("\(config.path):5: wake.models = \"computr\" is invalid: expected a bundled model name or a .hwks file (did you mean 'computer'?) (no model named 'computr'"))
        // hey_susi is the model's "hey susi"; a table for a keyword no model has would be ignored.
        #expect(lines[4] == "\(config.path):8: wake.keywords.\"hey jude\" = {…} is invalid: expected a keyword of the models loaded (\"hey susi\"); this table is ignored")
    }

    @Test func missingModelsAreProblemsToo() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = folder.appendingPathComponent("hotword.toml")
        try Data("[wake]\nmodels = [\"no_such_model\"]\n".utf8).write(to: config)
        let result = try await HotwordBinary.run(["config", "check", config.path])
        #expect(result.status == 78)
        #expect(result.stderr.hasPrefix("Error: \(config.path):2: wake.models = \"no_such_model\" is invalid: expected a bundled model name or a .hwks file (no model named 'no_such_model'"))
    }

    /// Voices and languages the engines do not have would fail at the first answer, or never be
    /// noticed: config check names them, and run says so at start.
    @Test func voicesAndLanguagesTheEnginesLackAreNamed() async throws {
        _ = ALSATestDevices.configPath
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = folder.appendingPathComponent("hotword.toml")
        try Data("[susi]\nlanguage = \"de\"\n[tts.espeak]\nvoice = \"en-us\"\n".utf8).write(to: config)
        let check = try await HotwordBinary.run(["config", "check", config.path])
        #expect(check.status == 78)
        #expect(check.stderr.split(separator: "\n").map(String.init) == [
            "Error: 2 problems in the configuration:",
            "\(config.path):2: susi.language = \"de\" is invalid: expected \"en\": stt.backend = \"auto\" transcribes English only (for de choose http, command or wyoming)",
            "\(config.path):4: tts.espeak.voice = \"en-us\" is invalid: expected a voice speaking de, the language of the answers (this one speaks en-us; `espeak-ng --voices=de` lists them)",
        ])
        try Data("[tts.espeak]\nvoice = \"xx-none\"\n".utf8).write(to: config)
        let unknown = try await HotwordBinary.run(["config", "check", config.path])
        #expect(unknown.stderr == "Error: \(config.path):2: tts.espeak.voice = \"xx-none\" is invalid: expected a voice espeak-ng has (`espeak-ng --voices` lists them)\n")
        // espeak-ng does speak Klingon.
        try Data("[tts.espeak]\nvoice = \"klingon\"\n".utf8).write(to: config)
        let klingon = try await HotwordBinary.run(["config", "check", config.path])
        #expect(klingon.stderr.hasSuffix("tts.espeak.voice = \"klingon\" is invalid: expected a voice speaking en, the language of the answers (this one speaks piqd; `espeak-ng --voices=en` lists them)\n"), "\(klingon.stderr)")

        let run = try await HotwordBinary.run(["run", "--config", config.path, "--language", "de", "--device", ALSATestDevices.missingName])
        #expect(run.status == 78)
        #expect(run.stderr.contains("susi.language = \"de\" is invalid: expected \"en\""), "\(run.stderr)")
    }

    @Test func aGoodFileIsOK() async throws {
        let example = TestPaths.projectRoot.appendingPathComponent("hotword.example.toml")
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        // The example without its models line, which needs the shipped model.
        let text = try String(contentsOf: example, encoding: .utf8).replacingOccurrences(of: "models = [\"hey_susi\"]\n", with: "")
        let config = folder.appendingPathComponent("hotword.toml")
        try Data(text.utf8).write(to: config)
        let result = try await HotwordBinary.run(["config", "check", config.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "\(config.path): OK\n")
    }
}
