import Foundation
import HotwordAudio
import HotwordTestSupport
import Testing

/// The fault matrix (docs/reliability.md): `hotword run` with real parts — ALSA file-plugin
/// devices, the SUSI test server, pocketsphinx, espeak-ng, real programs — meets one fault at a
/// time. It keeps listening (or exits with the documented status), says or prints what went
/// wrong, and loses no audio beyond what the fault itself made unavailable.
enum FaultRig {
    static let question = "hey susi, what time is it"
    static let answer = "It is ten o'clock."

    /// An executable shell script in `folder`.
    static func script(_ name: String, in folder: URL, _ body: String) throws -> URL {
        let file = folder.appendingPathComponent(name)
        try Data("#!/bin/sh\n\(body)\n".utf8).write(to: file)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: file.path)
        return file
    }
}

extension RunningHotword {
    var events: [[String: Any]] { RunCommandTests.events(lines) }

    func events(_ name: String) -> [[String: Any]] { events.filter { $0["event"] as? String == name } }

    /// The `text` of every `answer` event.
    var answers: [String] { events("answer").compactMap { $0["text"] as? String } }

    /// Every `error` event as "stage: message".
    var errors: [String] { events("error").map { "\($0["stage"] as? String ?? ""): \($0["message"] as? String ?? "")" } }

    /// Waits until the assistant has come back to listening `times` times after starting.
    func waitUntilListening(again times: Int, timeout: Duration = .seconds(60)) async -> Bool {
        await waitForLine(timeout: timeout) { _ in
            events("state").filter { $0["state"] as? String == "listening" }.count >= times + 1
        }
    }

    /// The logged lines that contain `text`.
    func logged(_ text: String) -> [String] { errorLines.filter { $0.contains(text) } }
}

@Suite("Fault matrix: audio devices")
struct AudioFaultTests {
    /// Row: no capture device at start. The name is known to ALSA but the device cannot be
    /// opened (here: the file-plugin device's input does not exist yet).
    @Test func aMicrophoneAbsentAtStartIsWaitedForAndHeardOnceItAppears() async throws {
        _ = ALSATestDevices.configPath
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try SUSITestServer(fallback: .answer(FaultRig.answer))
        defer { server.shutdown() }
        // Where PacedMicrophone will put its FIFO once it exists.
        let microphoneName = ALSATestDevices.capture(replaying: folder.appendingPathComponent("microphone.fifo"))
        let config = try RunCommandTests.configuration(in: folder, microphone: microphoneName,
                                                loudspeaker: ALSATestDevices.playback(into: folder.appendingPathComponent("played.raw")),
                                                server: server.baseURL)
        let question = try await RunCommandTests.speech(FaultRig.question, in: folder)

        let daemon = try RunningHotword(["run", "--config", config.path, "--json"])
        let waiting = await daemon.waitForErrorLine(timeout: .seconds(30)) { $0.contains("waiting for it") }
        // Several attempts (0.25 + 0.5 + 1 s) pass while the microphone is away.
        try await Task.sleep(for: .seconds(2))
        let stayedUp = daemon.isRunning
        let microphone = try PacedMicrophone(folder: folder)
        defer { microphone.close() }
        let available = await daemon.waitForErrorLine(timeout: .seconds(20)) { $0.contains("is available after") }
        microphone.say(RunCommandTests.silence(2.5) + question)
        let answered = await daemon.waitUntilListening(again: 1)
        let (status, stderr) = await daemon.stop()

        RunCommandTests.requireModel(stderr)
        #expect(waiting && stayedUp && available && answered, "stdout: \(daemon.lines)\nstderr: \(stderr)")
        #expect(status == 0)
        // Said once, with how to find another device; no line per attempt.
        #expect(daemon.logged("could not be opened").count == 1)
        #expect(daemon.logged("capture device '\(microphoneName)' could not be opened: No such file or directory"
            + " — list devices with `hotword devices`; waiting for it").count == 1)
        #expect(daemon.logged("is available after").count == 1)
        #expect(daemon.answers == ["\(FaultRig.answer)"])
        #expect(daemon.events("wake").count == 1)
    }

    /// Row: the device vanishes mid-stream. Its writes hit a full disk (alsa-lib then fails
    /// every read with EIO, as for an unplugged USB device), and while it is away it cannot be
    /// opened either (its input is gone). It comes back; the question after is heard whole.
    @Test func aMicrophoneThatFailsWhileListeningIsReopenedAndHeardAgain() async throws {
        _ = ALSATestDevices.configPath
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let disk: TemporaryDisk
        do { disk = try TemporaryDisk(at: folder.appendingPathComponent("disk"), bytes: 8 << 20) } catch { try Test.cancel("\(error)") }
        defer { disk.unmount() }
        let server = try SUSITestServer(fallback: .answer(FaultRig.answer))
        defer { server.shutdown() }
        let microphone = try PacedMicrophone(folder: folder)
        defer { microphone.close() }
        let input = folder.appendingPathComponent("microphone")
        try FileManager.default.createSymbolicLink(at: input, withDestinationURL: microphone.fifo)
        let microphoneName = ALSATestDevices.capture(replaying: input, copyingTo: disk.url.appendingPathComponent("copy.raw"))
        let config = try RunCommandTests.configuration(in: folder, microphone: microphoneName,
                                                loudspeaker: ALSATestDevices.playback(into: folder.appendingPathComponent("played.raw")),
                                                server: server.baseURL)
        let question = try await RunCommandTests.speech(FaultRig.question, in: folder)

        let daemon = try RunningHotword(["run", "--config", config.path, "--json"])
        let listening = await daemon.waitForErrorLine(timeout: .seconds(30)) { $0.contains("state: listening") }
        microphone.say(RunCommandTests.silence(1))
        try await microphone.waitUntilSaid()
        // Gone.
        try FileManager.default.removeItem(at: input)
        let filler = try disk.fill()
        let failed = await daemon.waitForErrorLine(timeout: .seconds(10)) { $0.contains("failed: Input/output error; reopening it") }
        try await Task.sleep(for: .seconds(1))
        let stayedUp = daemon.isRunning
        // Back.
        try FileManager.default.removeItem(at: filler)
        try FileManager.default.createSymbolicLink(at: input, withDestinationURL: microphone.fifo)
        let back = await daemon.waitForErrorLine(timeout: .seconds(20)) { $0.contains("works again after") }
        microphone.say(RunCommandTests.silence(1) + question)
        let answered = await daemon.waitUntilListening(again: 1)
        let (status, stderr) = await daemon.stop()

        RunCommandTests.requireModel(stderr)
        #expect(listening && failed && stayedUp && back && answered, "stdout: \(daemon.lines)\nstderr: \(stderr)")
        #expect(status == 0)
        // One line when it failed and one when it worked again, none per attempt in between.
        #expect(daemon.logged("capture device").filter { !$0.contains("opened:") && !$0.contains("closed") }.count == 2, "\(stderr)")
        #expect(daemon.logged("works again after").count == 1)
        let transcript = try #require(daemon.events("transcript").first?["text"] as? String)
        #expect(transcript.split(separator: " ").contains("time"), "heard \"\(transcript)\"")
        #expect(daemon.answers == ["\(FaultRig.answer)"])
    }

    /// Row: capture overrun because the reader is slow. The listener thread is frozen while
    /// capture goes on: 45 s of audio, more than the ring holds (30 s, rounded up to 32.8 s).
    /// (alsa-lib's file and null plugins have no clock, so a device-level xrun cannot be made
    /// without a sound card; the reader falling behind the ring is the same fault one level up.)
    @Test func aListenerThatFallsBehindReportsTheLostAudioAndHearsWhatFollows() async throws {
        _ = ALSATestDevices.configPath
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try SUSITestServer(fallback: .answer(FaultRig.answer))
        defer { server.shutdown() }
        // 8× real time: fast enough to overrun the ring in seconds, slow enough for a debug build
        // on a busy machine to catch up after the thaw.
        let microphone = try PacedMicrophone(folder: folder, speed: 8)
        defer { microphone.close() }
        let config = try RunCommandTests.configuration(in: folder, microphone: microphone.deviceName,
                                                loudspeaker: ALSATestDevices.playback(into: folder.appendingPathComponent("played.raw")),
                                                server: server.baseURL)
        let question = try await RunCommandTests.speech(FaultRig.question, in: folder)

        let daemon = try RunningHotword(["run", "--config", config.path, "--json"])
        let listening = await daemon.waitForErrorLine(timeout: .seconds(30)) { $0.contains("state: listening") }
        microphone.say(RunCommandTests.silence(1))
        try await microphone.waitUntilSaid()
        let frozen: FrozenThread
        do {
            frozen = try FrozenThread(named: "hotword-listener", of: daemon.processIdentifier)
        } catch {
            _ = await daemon.stop()
            try Test.cancel("\(error)")
        }
        microphone.say(RunCommandTests.silence(45))
        try await microphone.waitUntilSaid()
        frozen.thaw()
        let reported = await daemon.waitForLine(timeout: .seconds(10)) { $0.contains(#""event":"error""#) }
        microphone.say(RunCommandTests.silence(2.5) + question)
        let answered = await daemon.waitUntilListening(again: 1)
        let (status, stderr) = await daemon.stop()

        RunCommandTests.requireModel(stderr)
        #expect(listening && reported && answered, "stdout: \(daemon.lines)\nstderr: \(stderr)")
        #expect(status == 0)
        // One report an episode of lost audio, at its first gap (a busy machine may overtake the
        // thawed reader again once audio has flowed for 5 s: another episode), and the episode's
        // total when it ends; together the totals are what was lost.
        #expect(!daemon.errors.isEmpty)
        for error in daemon.errors {
            #expect(error.hasPrefix("audio: ") && error.hasSuffix(" s of audio lost: the machine is too busy"), "\(error)")
        }
        #expect(daemon.logged("the listener fell behind").count == daemon.errors.count)
        let episodes = daemon.logged("audio flows again: ")
        #expect(episodes.count == daemon.errors.count, "\(stderr)")
        let lost = episodes.reduce(0) { total, line in
            total + (line.range(of: "audio flows again: ").flatMap { Double(line[$0.upperBound...].prefix { $0 != " " }) } ?? 0)
        }
        // What the ring could not hold: 45 − 32.8 s, and the silence the microphone went on
        // saying while the thread was being frozen and thawed.
        #expect(lost > 11 && lost < 30, "\(episodes)\n\(stderr)")
        #expect(daemon.events("wake").count == 1)
        #expect(daemon.answers == ["\(FaultRig.answer)"])
    }

    /// Row: disk full while keeping a wake recording (`[recording] keep_dir` on a 64 KiB tmpfs,
    /// smaller than one recording). The recording is lost with a message naming the file, no
    /// partial file is left, and listening goes on; with room again, the next wake is kept,
    /// and the file holds the wake word and the question.
    @Test func aFullDiskCostsOneWakeRecordingAndListeningGoesOn() async throws {
        _ = ALSATestDevices.configPath
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let disk: TemporaryDisk
        do { disk = try TemporaryDisk(at: folder.appendingPathComponent("wakes"), bytes: 64 << 10) } catch { try Test.cancel("\(error)") }
        defer { disk.unmount() }
        let server = try SUSITestServer(fallback: .answer(FaultRig.answer))
        defer { server.shutdown() }
        let microphone = try PacedMicrophone(folder: folder)
        defer { microphone.close() }
        let config = try RunCommandTests.configuration(in: folder, microphone: microphone.deviceName,
                                                loudspeaker: ALSATestDevices.playback(into: folder.appendingPathComponent("played.raw")),
                                                server: server.baseURL, extra: "[recording]\nkeep_dir = '\(disk.url.path)'")
        let question = try await RunCommandTests.speech(FaultRig.question, in: folder)

        let daemon = try RunningHotword(["run", "--config", config.path, "--json"])
        microphone.say(RunCommandTests.silence(2.5) + question)
        let firstAnswered = await daemon.waitUntilListening(again: 1)
        let lost = await daemon.waitForErrorLine(timeout: .seconds(10)) { $0.contains("wake recording lost") }
        let leftAfterFailure = try FileManager.default.contentsOfDirectory(atPath: disk.url.path)
        try disk.resize(bytes: 1 << 20)
        microphone.say(RunCommandTests.silence(1) + question)
        let secondAnswered = await daemon.waitUntilListening(again: 2)
        let kept = await daemon.waitForErrorLine(timeout: .seconds(10)) { $0.contains("wake recorded in") }
        let (status, stderr) = await daemon.stop()

        RunCommandTests.requireModel(stderr)
        #expect(firstAnswered && lost && secondAnswered && kept, "stdout: \(daemon.lines)\nstderr: \(stderr)")
        #expect(status == 0)
        let failure = try #require(daemon.logged("wake recording lost").first)
        #expect(failure.contains("cannot write audio file \(disk.url.path)/") && failure.contains("-hey_susi.wav: "), "\(failure)")
        #expect(failure.contains("No space left on device"), "\(failure)")
        #expect(leftAfterFailure == [], "a partial file was left: \(leftAfterFailure)")
        #expect(daemon.answers == ["\(FaultRig.answer)", "\(FaultRig.answer)"])

        let files = try FileManager.default.contentsOfDirectory(atPath: disk.url.path)
        #expect(files.count == 1)
        let name = try #require(files.first)
        #expect(name.wholeMatch(of: /\d{8}T\d{6}\.\d{3}Z-hey_susi\.wav/) != nil, "\(name)")
        let file = disk.url.appendingPathComponent(name)
        #expect(try AudioFileReader.info(of: file).sampleRate == 16_000)
        // What the detector heard before the wake and half a second more (about 2.3 s), then the
        // question as recorded (which starts at most 0.3 s before the wake).
        let utterance = try #require(daemon.events("utterance_end").last?["duration"] as? Double)
        let seconds = Double(try AudioFileReader.read(file).samples.count) / 16_000
        #expect(seconds > utterance + 1.5 && seconds < utterance + 3.5, "\(seconds) s kept for a \(utterance) s question")
        let detected = try await HotwordBinary.run(["detect", file.path])
        #expect(detected.stdout.contains("\they susi\t"), "\(detected.stdout)\(detected.stderr)")
    }
}

@Suite("Fault matrix: services")
struct ServiceFaultTests {
    /// A running assistant with a paced microphone and the question, for the service rows.
    struct Rig {
        let folder: URL
        let microphone: PacedMicrophone
        let question: [Float]

        init() async throws {
            _ = ALSATestDevices.configPath
            folder = try TestPaths.temporaryDirectory()
            microphone = try PacedMicrophone(folder: folder)
            question = try await RunCommandTests.speech(FaultRig.question, in: folder)
        }

        func configuration(server: URL, susiTimeoutSeconds: Int = 5, extra: String = "") throws -> URL {
            try RunCommandTests.configuration(in: folder, microphone: microphone.deviceName,
                                       loudspeaker: ALSATestDevices.playback(into: folder.appendingPathComponent("played.raw")),
                                       server: server, susiTimeoutSeconds: susiTimeoutSeconds, extra: extra)
        }

        /// Asks the question (the first time after the detector's warm-up) and waits until the
        /// assistant listens again after its `number`th answer.
        func ask(_ number: Int, of daemon: RunningHotword) async -> Bool {
            microphone.say(RunCommandTests.silence(number == 1 ? 2.5 : 1) + question)
            return await daemon.waitUntilListening(again: number)
        }

        /// Runs the daemon, asks the question twice and stops it: both must be answered (one way
        /// or another) and it must exit 0. The daemon is returned for its output.
        func askTwice(config: URL) async throws -> RunningHotword {
            let daemon = try RunningHotword(["run", "--config", config.path, "--json"])
            let first = await ask(1, of: daemon)
            let second = await ask(2, of: daemon)
            let (status, stderr) = await daemon.stop()
            RunCommandTests.requireModel(stderr)
            #expect(first && second, "stdout: \(daemon.lines)\nstderr: \(stderr)")
            #expect(status == 0)
            return daemon
        }

        func close() {
            microphone.close()
            try? FileManager.default.removeItem(at: folder)
        }
    }

    /// Row: SUSI unreachable (nothing listens), 5xx, an HTML page, broken JSON, no answer in
    /// time — one question each, in one run; every one is apologised for (printed and spoken)
    /// and the question after the last is answered.
    @Test func everySUSIFailureIsApologisedForAndTheNextQuestionIsAnswered() async throws {
        let rig = try await Rig()
        defer { rig.close() }
        let port = try TestHTTPServer.unusedPort()
        let config = try rig.configuration(server: URL(string: "http://127.0.0.1:\(port)")!, susiTimeoutSeconds: 1)

        let daemon = try RunningHotword(["run", "--config", config.path, "--json"])
        let unreachable = await rig.ask(1, of: daemon)
        let server = try SUSITestServer(fallback: .answer(FaultRig.answer), port: port)
        defer { server.shutdown() }
        server.enqueue(.htmlError(status: 500),
                       .raw(status: 200, contentType: "text/html", body: "<html><body>Please log in to the hotel Wi-Fi</body></html>"),
                       .garbage,
                       .slow(.seconds(3), .answer("Too late.")))
        var answered = [unreachable]
        for number in 2...6 { answered.append(await rig.ask(number, of: daemon)) }
        let (status, stderr) = await daemon.stop()

        RunCommandTests.requireModel(stderr)
        #expect(answered == [Bool](repeating: true, count: 6), "stdout: \(daemon.lines)\nstderr: \(stderr)")
        #expect(status == 0)
        #expect(daemon.answers == [
            "I can't reach SUSI right now.",
            "SUSI had a problem with that question.",
            "I can't reach SUSI right now.",
            "SUSI sent an answer I couldn't understand.",
            "SUSI is taking too long to answer.",
            "\(FaultRig.answer)",
        ])
        let errors = daemon.errors
        #expect(errors.count == 5)
        let expected = ["ask: SUSI server unreachable: ", "ask: SUSI server error: ", "ask: SUSI server sent something other than JSON",
                        "ask: SUSI server sent an unreadable reply", "ask: SUSI server too slow: "]
        for (error, start) in zip(errors, expected) { #expect(error.hasPrefix(start), "\(error)") }
        #expect(server.chatRequests.count == 5)
        #expect(daemon.events("wake").count == 6)
    }

    /// Row: the speech-to-text server is down (nothing listens on its port), then comes up.
    @Test func aSpeechToTextServerThatIsDownIsReportedAndUsedOnceItIsBack() async throws {
        let rig = try await Rig()
        defer { rig.close() }
        let susi = try SUSITestServer(fallback: .answer(FaultRig.answer))
        defer { susi.shutdown() }
        let port = try TestHTTPServer.unusedPort()
        // This row has no stand-in (pocketsphinx standing in for the server: ConversationTests).
        let config = try rig.configuration(server: susi.baseURL, extra: """
            [stt]
            backend = "http"
            fallback = "none"
            [stt.http]
            url = "http://127.0.0.1:\(port)/v1/audio/transcriptions"
            timeout_s = 5
            """)

        let daemon = try RunningHotword(["run", "--config", config.path, "--json"])
        let first = await rig.ask(1, of: daemon)
        let whisper = try TestHTTPServer(port: port) { _ in
            TestHTTPResponse(status: 200, contentType: "application/json", body: #"{"text": " What time is it?"}"#)
        }
        defer { whisper.shutdown() }
        let second = await rig.ask(2, of: daemon)
        let (status, stderr) = await daemon.stop()

        RunCommandTests.requireModel(stderr)
        #expect(first && second, "stdout: \(daemon.lines)\nstderr: \(stderr)")
        #expect(status == 0)
        #expect(daemon.answers == ["Sorry, I could not make out what you said.", "\(FaultRig.answer)"])
        let error = try #require(daemon.errors.first)
        #expect(daemon.errors.count == 1)
        #expect(error.hasPrefix("transcribe: ") && error.contains("127.0.0.1:\(port)"), "\(error)")
        #expect(whisper.requests.count == 1)
        // The server's "What time is it?" as asked: lower case, sentence punctuation gone (QuestionText).
        #expect(susi.chatRequests.map { $0.query("q") } == ["what time is it"])
    }

    /// Row: the speech-to-text program fails (as whisper-cli does without its model), then works.
    @Test func aFailingSpeechToTextProgramIsReportedAndTheNextQuestionWorks() async throws {
        let rig = try await Rig()
        defer { rig.close() }
        let susi = try SUSITestServer(fallback: .answer(FaultRig.answer))
        defer { susi.shutdown() }
        let program = try FaultRig.script("transcribe.sh", in: rig.folder, """
            calls="$(dirname "$0")/transcribe-calls"
            echo >> "$calls"
            if [ "$(wc -l < "$calls")" -eq 1 ]; then echo "whisper: cannot load model ggml-base.en.bin" >&2; exit 2; fi
            test -s "$1" && echo "what time is it"
            """)
        // This row has no stand-in (pocketsphinx standing in for the program: ConversationTests).
        let config = try rig.configuration(server: susi.baseURL, extra: """
            [stt]
            backend = "command"
            fallback = "none"
            [stt.command]
            arguments = ["\(program.path)", "{wav}"]
            """)

        let daemon = try await rig.askTwice(config: config)

        #expect(daemon.answers == ["Sorry, I could not make out what you said.", "\(FaultRig.answer)"])
        #expect(daemon.errors == ["transcribe: speech to text (command): \(program.path) exited with status 2: whisper: cannot load model ggml-base.en.bin"])
        #expect(susi.chatRequests.map { $0.query("q") } == ["what time is it"])
    }

    /// Row: text to speech fails — the program exits with an error, then writes something that
    /// is not audio. The answers are printed all the same, and it keeps listening.
    @Test func aFailingTextToSpeechStillPrintsTheAnswer() async throws {
        let rig = try await Rig()
        defer { rig.close() }
        let susi = try SUSITestServer(fallback: .answer(FaultRig.answer))
        defer { susi.shutdown() }
        let program = try FaultRig.script("speak.sh", in: rig.folder, """
            calls="$(dirname "$0")/speak-calls"
            echo >> "$calls"
            if [ "$(wc -l < "$calls")" -eq 1 ]; then echo "piper: voice model not found" >&2; exit 3; fi
            echo "this is not audio"
            """)
        let config = try rig.configuration(server: susi.baseURL, extra: """
            [tts]
            backend = "command"
            [tts.command]
            arguments = ["\(program.path)"]
            """)

        let daemon = try await rig.askTwice(config: config)

        #expect(daemon.answers == ["\(FaultRig.answer)", "\(FaultRig.answer)"])
        let errors = daemon.errors
        #expect(errors.count == 2)
        #expect(errors.first == "speak: text to speech (command): \(program.path) exited with status 3: piper: voice model not found")
        #expect(errors.last?.hasPrefix("speak: text to speech (command): \(program.path) left no readable audio in its standard output: ") == true,
                "\(errors)")
    }
}

@Suite("Fault matrix: start")
struct StartFaultTests {
    enum Corruption: String, CaseIterable {
        case flippedByte, truncated, notAModel
    }

    /// Row: a corrupt wake-word model is a configuration error (exit 78) naming the file and
    /// what is wrong with it, reported before anything listens.
    @Test(arguments: Corruption.allCases)
    func aCorruptModelIsAConfigurationErrorNamingTheFile(_ corruption: Corruption) async throws {
        _ = ALSATestDevices.configPath
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        var bytes = try Data(contentsOf: TestPaths.projectRoot.appendingPathComponent("Models/hey_susi.hwks"))
        let expected: String
        switch corruption {
        case .flippedByte:
            bytes[bytes.count / 2] ^= 0x40
            expected = "checksum mismatch"
        case .truncated:
            bytes = bytes.prefix(bytes.count / 2)
            expected = "truncated: \(bytes.count) bytes, expected"
        case .notAModel:
            bytes = Data("<html>404 Not Found</html>\n".utf8)
            expected = "not a hotword model (missing the 'HWKS' magic bytes)"
        }
        let model = folder.appendingPathComponent("hey_susi.hwks")
        try bytes.write(to: model)
        let config = folder.appendingPathComponent("hotword.toml")
        try Data().write(to: config)

        let result = try await HotwordBinary.run(["run", "--config", config.path, "--model", model.path,
                                                  "--device", ALSATestDevices.capture(replaying: URL(fileURLWithPath: "/dev/zero"))],
                                                 timeout: .seconds(30))

        #expect(result.status == 78)
        #expect(result.stdout == "")
        // One line (after the microphone's "opened"), naming the file and what is wrong with it.
        let errors = result.stderr.split(separator: "\n").filter { $0.hasPrefix("Error: ") }
        #expect(errors.count == 1 && errors.first?.hasPrefix("Error: wake-word model: \(model.path): \(expected)") == true,
                "\(result.stderr)")
        #expect(result.stderr.hasSuffix("\n") && result.stderr.split(separator: "\n").last == errors.first)
    }

    /// Row: a loudspeaker ALSA knows but that cannot be opened at start (here a card that is not
    /// plugged in) ends the start with status 1, which a service manager retries; the
    /// microphone would be waited for, but an assistant that cannot answer aloud should not
    /// pretend to work.
    @Test func aLoudspeakerThatCannotBeOpenedAtStartEndsWithStatus1() async throws {
        _ = ALSATestDevices.configPath
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = folder.appendingPathComponent("hotword.toml")
        try Data().write(to: config)
        let loudspeaker = "plughw:CARD=NoSuchCard,DEV=0"

        let result = try await HotwordBinary.run(["run", "--config", config.path, "--playback-device", loudspeaker,
                                                  "--device", ALSATestDevices.capture(replaying: URL(fileURLWithPath: "/dev/zero"))],
                                                 timeout: .seconds(30))

        RunCommandTests.requireModel(result.stderr)
        #expect(result.status == 1)
        #expect(result.stdout == "")
        let errors = result.stderr.split(separator: "\n").filter { $0.hasPrefix("Error: ") }
        #expect(errors == ["Error: playback device '\(loudspeaker)' could not be opened: No such device — list devices with "
            + "`hotword devices` and choose one with --playback-device NAME or playback_device in [audio] of hotword.toml"], "\(result.stderr)")
    }
}
