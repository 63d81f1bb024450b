import Foundation
import HotwordAudio
import HotwordModels
import HotwordTestSupport
import Testing

/// `hotword run` as a service: systemd's notifications (a socket of the test's own), stopping
/// on SIGTERM, reloading on SIGHUP — the real binary on real ALSA devices (the paced
/// microphone), with tone models as wake words so detection is exact and fast.
@Suite("hotword run as a service")
struct ServiceTests {
    /// A running `hotword run --json` with its microphone, configuration and notification socket.
    struct Service {
        let folder: URL
        let microphone: PacedMicrophone
        let socket: NotifySocket
        let config: URL
        let run: RunningHotword

        /// - Parameters:
        ///   - settings: TOML after the [audio] table (which names the microphone).
        ///   - environment: more variables for the process (WATCHDOG_USEC, …).
        init(folder: URL, settings: String, environment: [String: String] = [:], arguments: [String] = []) throws {
            _ = ALSATestDevices.configPath
            self.folder = folder
            microphone = try PacedMicrophone(folder: folder)
            socket = try NotifySocket(path: folder.appendingPathComponent("notify").path)
            config = folder.appendingPathComponent("hotword.toml")
            try Self.write(settings, microphone: microphone, to: config)
            run = try RunningHotword(["run", "--config", config.path, "--json"] + arguments,
                                     environment: ["NOTIFY_SOCKET": socket.address].merging(environment) { $1 })
        }

        /// Replaces the configuration file (for the next SIGHUP).
        func rewrite(_ settings: String) throws {
            try Self.write(settings, microphone: microphone, to: config)
        }

        private static func write(_ settings: String, microphone: PacedMicrophone, to file: URL) throws {
            try Data("""
                [audio]
                capture_device = '\(microphone.deviceName)'
                \(settings)
                """.utf8).write(to: file)
        }

        /// The notifications so far that set `key` (READY, WATCHDOG, …).
        func notifications(_ key: String) -> [NotifySocket.Message] {
            socket.messages.filter { $0.fields[key] == "1" }
        }

        /// Waits until systemd would have been told READY=1 `count` times in all.
        func waitUntilReady(_ count: Int = 1, timeout: Duration = .seconds(30)) async -> Bool {
            await socket.wait(timeout: timeout) { messages in messages.filter { $0.fields["READY"] == "1" }.count >= count }
        }

        /// Sends SIGHUP and waits for the reload to finish (READY=1 again); its STATUS.
        func reload() async -> String? {
            let before = notifications("READY").count
            run.send(SIGHUP)
            guard await waitUntilReady(before + 1) else { return nil }
            return notifications("READY").last?.fields["STATUS"]
        }

        /// The keywords of the wake events so far, in order.
        var wakes: [String] {
            RunCommandTests.events(run.lines).filter { $0["event"] as? String == "wake" }.compactMap { $0["keyword"] as? String }
        }

        /// How often the assistant has entered `state`.
        func entered(_ state: String) -> Int {
            RunCommandTests.events(run.lines).filter { $0["state"] as? String == state }.count
        }

        /// Plays `samples` into the microphone and waits until they and `margin` more have been captured.
        func say(_ samples: [Float], margin: Duration = .seconds(1)) async throws {
            microphone.say(samples)
            try await microphone.waitUntilSaid(margin: margin)
        }

        func close() {
            microphone.close()
            socket.close()
        }
    }

    /// No cue, no loudspeaker, no network: a wake word is followed by a question that transcribes
    /// to nothing (`/bin/true` as the recogniser), an apology in print, and listening again.
    static let quietSettings = """
        [cue]
        enabled = false
        [stt]
        backend = "command"
        [stt.command]
        arguments = ["/bin/true", "{wav}"]
        [tts]
        backend = "none"
        [susi]
        server = 'http://127.0.0.1:1'
        retries = 0
        """

    static func wake(_ models: [URL], extra: String = "") -> String {
        "[wake]\nmodels = [\(models.map { "'\($0.path)'" }.joined(separator: ", "))]\n\(extra)\n" + quietSettings
    }

    /// A tone keyword model, saved in `folder`.
    static func toneModel(_ keyword: String, frequency: Double, in folder: URL) throws -> URL {
        let file = folder.appendingPathComponent("\(keyword).hwks")
        try ModelStore.save(ToneModels.model(keyword: keyword, frequency: frequency), to: file.path)
        return file
    }

    /// A tone burst with a little quiet before and after.
    static func tone(_ frequency: Double, amplitude: Float = 0.3) -> [Float] {
        ToneModels.signal(seconds: 1.5, tones: [(0.5, frequency)], amplitude: amplitude)
    }

    // MARK: Notifications and stopping

    @Test func systemdHearsReadyTheWatchdogFromTheAudioLoopAndStopping() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let beep = try Self.toneModel("beep", frequency: 1_000, in: folder)
        let watchdogMicroseconds = 500_000
        let service = try Service(folder: folder, settings: Self.wake([beep]),
                                  environment: ["WATCHDOG_USEC": "\(watchdogMicroseconds)"])
        defer { service.close() }

        let ready = await service.waitUntilReady()
        // Pinged at half the interval: ten pings take about 2.5 s.
        let pinged = await service.socket.wait { $0.filter { $0.fields["WATCHDOG"] == "1" }.count >= 10 }
        let (status, stderr) = await service.run.stop(signal: SIGTERM)

        #expect(ready && pinged, "\(service.socket.messages.map(\.text))\n\(stderr)")
        #expect(status == 0, "\(stderr)")
        let messages = service.socket.messages
        let readyMessages = messages.filter { $0.fields["READY"] == "1" }
        #expect(readyMessages.count == 1)
        #expect(readyMessages.first?.fields["STATUS"] == "listening for \(beep.path) on \(service.microphone.deviceName)")
        let stopping = try #require(messages.lastIndex { $0.fields["STOPPING"] == "1" }, "\(messages.map(\.text))")
        #expect(messages.firstIndex { $0.fields["READY"] == "1" }! < stopping)
        #expect(messages[stopping...].dropFirst().allSatisfy { $0.text == "WATCHDOG=1" }, "only pings may race the stop")
        // Never as long without a ping as systemd would allow.
        let pings = messages.filter { $0.text == "WATCHDOG=1" }.map(\.time)
        let longestGap = zip(pings, pings.dropFirst()).map { $1 - $0 }.max() ?? .zero
        #expect(longestGap < .microseconds(watchdogMicroseconds), "longest gap between pings: \(longestGap)")
        #expect(longestGap > .microseconds(watchdogMicroseconds / 4), "pings at half the interval, not per period: \(longestGap)")
    }

    @Test func sigtermWhileListeningEndsWithStatus0WithinASecond() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let service = try Service(folder: folder, settings: Self.wake([try Self.toneModel("beep", frequency: 1_000, in: folder)]))
        defer { service.close() }
        let ready = await service.waitUntilReady()
        try await Task.sleep(for: .milliseconds(300))

        let sent = ContinuousClock.now
        let (status, stderr) = await service.run.stop(signal: SIGTERM)
        let took = try #require(service.run.exitedAt) - sent

        #expect(ready, "\(stderr)")
        #expect(status == 0, "\(stderr)")
        #expect(took < .seconds(1), "SIGTERM to exit: \(took)")
        print("SIGTERM while listening: exited after \(took)")
    }

    @Test func sigtermWhileSpeakingCutsTheAnswerAndEndsWithStatus0WithinASecond() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try SUSITestServer(fallback: .answer(String(repeating: "The weather in Berlin will be sunny and warm all day long. ", count: 6)))
        defer { server.shutdown() }
        // Played in real time, so the answer takes half a minute.
        let loudspeaker = try PacedLoudspeaker(folder: folder, sampleRate: 16_000, speed: 1)
        defer { loudspeaker.close() }
        let service = try Service(folder: folder, settings: """
            playback_device = '\(loudspeaker.deviceName)'
            playback_rate = 16000
            [wake]
            models = ['\(try Self.toneModel("beep", frequency: 1_000, in: folder).path)']
            [cue]
            enabled = false
            [stt]
            backend = "command"
            [stt.command]
            arguments = ["/bin/echo", "what is the weather like {wav}"]
            [susi]
            server = '\(server.baseURL.absoluteString)'
            retries = 0
            """)
        defer { service.close() }
        _ = await service.waitUntilReady()
        service.microphone.say(Self.tone(1_000))
        let speaking = await service.run.waitForLine { _ in service.entered("speaking") == 1 }
        let deadline = ContinuousClock.now + .seconds(10)
        while loudspeaker.playedSeconds < 0.5, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }

        let sent = ContinuousClock.now
        let (status, stderr) = await service.run.stop(signal: SIGTERM)
        let took = try #require(service.run.exitedAt) - sent

        #expect(speaking && loudspeaker.playedSeconds >= 0.5, "stdout: \(service.run.lines)\nstderr: \(stderr)")
        #expect(status == 0, "\(stderr)")
        #expect(took < .seconds(1), "SIGTERM to exit: \(took)")
        #expect(loudspeaker.playedSeconds < 10, "the answer was cut, not finished: \(loudspeaker.playedSeconds) s")
        print("SIGTERM while speaking: exited after \(took)")
    }

    // MARK: Reloading

    @Test func sighupTakesUpAnAddedAndARemovedModelWithoutStoppingCapture() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let low = try Self.toneModel("low", frequency: 500, in: folder)
        let high = try Self.toneModel("high", frequency: 2_000, in: folder)
        let service = try Service(folder: folder, settings: Self.wake([low]))
        defer { service.close() }
        let ready = await service.waitUntilReady()

        try await service.say(Self.tone(2_000))
        let wakesBefore = service.wakes
        try service.rewrite(Self.wake([low, high]))
        let added = await service.reload()
        try await service.say(Self.tone(2_000))
        let heardHigh = await service.run.waitForLine(timeout: .seconds(10)) { _ in service.wakes == ["high"] }
        _ = await service.run.waitForLine(timeout: .seconds(20)) { _ in service.entered("listening") == 2 }
        try service.rewrite(Self.wake([low]))
        let removed = await service.reload()
        try await service.say(Self.tone(2_000) + Self.tone(500))
        let heardLow = await service.run.waitForLine(timeout: .seconds(10)) { _ in service.wakes.count == 2 }
        let (status, stderr) = await service.run.stop()

        #expect(ready && heardHigh && heardLow, "stdout: \(service.run.lines)\nstderr: \(stderr)")
        #expect(wakesBefore == [], "the 2 kHz tone is no wake word before the reload")
        #expect(added == "listening (configuration reloaded)" && removed == added)
        #expect(service.wakes == ["high", "low"])
        #expect(status == 0)
        // One capture device all along, and no audio lost to the reloads.
        #expect(stderr.components(separatedBy: "capture device '").count - 1 == 1, "\(stderr)")
        #expect(!stderr.contains("audio lost"), "\(stderr)")
        #expect(stderr.components(separatedBy: "configuration reloaded").count - 1 == 2)
    }

    @Test func sighupTakesUpAChangedSensitivity() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let beep = try Self.toneModel("beep", frequency: 1_000, in: folder)
        // At sensitivity 0 (threshold 0.99) a weak tone is not enough; at 1 (threshold 0.3) it is.
        let service = try Service(folder: folder, settings: Self.wake([beep], extra: "sensitivity = 0.0"))
        defer { service.close() }
        let ready = await service.waitUntilReady()

        try await service.say(Self.tone(1_000, amplitude: 0.02))
        let wakesBefore = service.wakes
        try service.rewrite(Self.wake([beep], extra: "sensitivity = 1.0"))
        let reloaded = await service.reload()
        service.microphone.say(Self.tone(1_000, amplitude: 0.02))
        let heard = await service.run.waitForLine(timeout: .seconds(10)) { _ in service.wakes == ["beep"] }
        let (status, stderr) = await service.run.stop()

        #expect(ready && heard, "stdout: \(service.run.lines)\nstderr: \(stderr)")
        #expect(wakesBefore == [])
        #expect(reloaded == "listening (configuration reloaded)")
        #expect(status == 0)
    }

    @Test func aBrokenConfigurationOrModelAtReloadIsLoggedAndTheOldOneKeepsListening() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let beep = try Self.toneModel("beep", frequency: 1_000, in: folder)
        let corrupt = folder.appendingPathComponent("corrupt.hwks")
        var bytes = Array(try Data(contentsOf: beep))
        bytes[bytes.count / 2] ^= 0xFF  // one flipped byte: the checksum no longer matches
        try Data(bytes).write(to: corrupt)
        let missing = folder.appendingPathComponent("missing.hwks")
        let service = try Service(folder: folder, settings: Self.wake([beep]))
        defer { service.close() }
        let ready = await service.waitUntilReady()

        // A misspelt key, on line 5 (after [audio], capture_device, [wake], models).
        try service.rewrite(Self.wake([beep], extra: "sensitivty = 0.4"))
        let badKey = await service.reload()
        try await service.say(Self.tone(1_000))
        let stillHeard = await service.run.waitForLine(timeout: .seconds(10)) { _ in service.wakes.count == 1 }
        _ = await service.run.waitForLine(timeout: .seconds(20)) { _ in service.entered("listening") == 2 }
        try service.rewrite(Self.wake([beep, corrupt]))
        let badModel = await service.reload()
        try service.rewrite(Self.wake([beep, missing]))
        let noModel = await service.reload()
        service.microphone.say(Self.tone(1_000))
        let heardAgain = await service.run.waitForLine(timeout: .seconds(10)) { _ in service.wakes.count == 2 }
        let (status, stderr) = await service.run.stop()

        #expect(ready && stillHeard && heardAgain, "stdout: \(service.run.lines)\nstderr: \(stderr)")
        let failed = "listening (reload failed, the previous configuration stays in use)"
        #expect(badKey == failed && badModel == failed && noModel == failed)
        #expect(service.wakes == ["beep", "beep"])
        #expect(status == 0)
        let errors = stderr.split(separator: "\n").filter { $0.contains("reload failed") }
        #expect(errors.count == 3, "\(stderr)")
        #expect(errors.first?.hasSuffix("\(service.config.path):5: unknown key 'wake.sensitivty' (did you mean 'sensitivity'?)") == true, "\(errors)")
        #expect(errors.dropFirst().first?.contains("wake-word model: \(corrupt.path): ") == true, "\(errors)")
        #expect(errors.last?.hasSuffix("wake-word model: \(missing.path): no such model file") == true, "\(errors)")
    }

    @Test func aConfigurationProblemAtStartEndsWithStatus78() async throws {
        _ = ALSATestDevices.configPath
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = folder.appendingPathComponent("hotword.toml")
        // A microphone that works (silence), and a model that is not there.
        try Data("[audio]\ncapture_device = '\(ALSATestDevices.captureName)'\n\(Self.wake([folder.appendingPathComponent("none.hwks")]))".utf8)
            .write(to: config)
        let result = try await HotwordBinary.run(["run", "--config", config.path])
        #expect(result.status == 78, "\(result.stderr)")
        #expect(result.stderr.hasSuffix("\nError: wake-word model: \(folder.path)/none.hwks: no such model file\n"), "\(result.stderr)")
    }
}

/// The systemd units and the install script, checked without a running systemd.
@Suite("service files")
struct ServiceFileTests {
    static let systemdAnalyze = URL(fileURLWithPath: "/usr/bin/systemd-analyze")
    static let installScript = TestPaths.projectRoot.appendingPathComponent("scripts/install.sh")

    /// `systemd-analyze verify` of `unit` with its ExecStart pointing at the built binary (it
    /// checks that the program exists); everything it prints is a problem.
    static func verify(_ unit: URL, user: Bool) async throws -> HotwordBinary.Result {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let copy = folder.appendingPathComponent(unit.lastPathComponent)
        let text = try String(contentsOf: unit, encoding: .utf8)
        #expect(text.contains("ExecStart=/usr/local/bin/hotword run\n") || text.contains("ExecStart=/usr/local/bin/hotword serve\n"))
        try Data(text.replacingOccurrences(of: "/usr/local/bin/hotword", with: HotwordBinary.url.path).utf8).write(to: copy)
        // A user manager needs a runtime directory even to verify.
        let arguments = user ? ["--user", "verify", copy.path] : ["verify", copy.path]
        return try await HotwordBinary.run(["XDG_RUNTIME_DIR=\(folder.path)", systemdAnalyze.path] + arguments,
                                           executable: URL(fileURLWithPath: "/usr/bin/env"))
    }

    @Test(arguments: [("systemd/hotword.service", false), ("systemd/user/hotword.service", true), ("systemd/hotword-wyoming.service", false)])
    func theUnitVerifiesWithoutAWarning(path: String, user: Bool) async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.systemdAnalyze.path),
                     "systemd-analyze is missing: scripts/deps.sh installs the package systemd")
        let result = try await Self.verify(TestPaths.projectRoot.appendingPathComponent(path), user: user)
        #expect(result.status == 0)
        #expect(result.stdout + result.stderr == "", "systemd-analyze verify \(path)")
    }

    @Test func aUnitWithAProblemIsCaught() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.systemdAnalyze.path))
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let unit = folder.appendingPathComponent("hotword.service")
        // RestartSteps= came with systemd 254; Debian 12 has 252.
        let text = try String(contentsOf: TestPaths.projectRoot.appendingPathComponent("systemd/hotword.service"), encoding: .utf8)
        try Data(text.replacingOccurrences(of: "RestartSec=5s\n", with: "RestartSec=5s\nRestartSteps=3\n").utf8).write(to: unit)
        let result = try await Self.verify(unit, user: false)
        #expect(result.stderr.contains("Unknown key 'RestartSteps'") || result.stderr.contains("Unknown key name 'RestartSteps'"),
                "\(result.stderr)")
    }

    @Test func theUnitsKeepTheirPromises() throws {
        let system = try String(contentsOf: TestPaths.projectRoot.appendingPathComponent("systemd/hotword.service"), encoding: .utf8)
        let user = try String(contentsOf: TestPaths.projectRoot.appendingPathComponent("systemd/user/hotword.service"), encoding: .utf8)
        for line in ["Type=notify", "NotifyAccess=main", "WatchdogSec=30s", "Restart=on-failure", "RestartPreventExitStatus=64 78",
                     "ExecReload=/bin/kill -HUP $MAINPID", "StateDirectory=hotword", "MemoryDenyWriteExecute=yes"] {
            #expect(system.contains("\n\(line)\n") && user.contains("\n\(line)\n"), "\(line)")
        }
        for line in ["User=hotword", "SupplementaryGroups=audio", "After=sound.target network-online.target",
                     "Wants=network-online.target", "DeviceAllow=char-alsa rw", "ProtectSystem=strict",
                     "SystemCallFilter=@system-service", "WantedBy=multi-user.target"] {
            #expect(system.contains("\n\(line)\n"), "\(line)")
        }
        #expect(user.contains("\nWantedBy=default.target\n"))
        #expect(!system.contains("Requires=network"), "no network needed to start")
    }

    /// The units' `StateDirectory=hotword` is the one place the hardening lets the service write
    /// (`ProtectSystem=strict`, `ProtectHome=yes`); systemd names it in `$STATE_DIRECTORY`, and
    /// the history database goes there with no setting at all.
    @Test func theHistoryGoesIntoTheStateDirectoryTheUnitsAllow() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try SUSITestServer(fallback: .answer("Hello."))
        defer { server.shutdown() }
        let state = folder.appendingPathComponent("var/lib/hotword")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        let config = folder.appendingPathComponent("hotword.toml")
        try Data("[susi]\nserver = '\(server.baseURL.absoluteString)'\n".utf8).write(to: config)
        // As systemd runs it: the state directory named, the home folder out of reach.
        let service = ["STATE_DIRECTORY": state.path, "HOME": "/nonexistent", "XDG_STATE_HOME": ""]
        let asked = try await HotwordBinary.run(["ask", "hello", "--config", config.path], environment: service)
        #expect(asked.status == 0 && asked.stderr == "", "\(asked.stderr)")
        #expect(FileManager.default.fileExists(atPath: state.appendingPathComponent("history.sqlite").path))
        let shown = try await HotwordBinary.run(["history", "--config", config.path], environment: service)
        #expect(shown.stdout.contains("You: hello\nSUSI: Hello."), "\(shown.stdout)\(shown.stderr)")
        for unit in ["systemd/hotword.service", "systemd/user/hotword.service"] {
            let text = try String(contentsOf: TestPaths.projectRoot.appendingPathComponent(unit), encoding: .utf8)
            #expect(text.contains("\nStateDirectory=hotword\n") && !text.contains("ReadWritePaths"), "\(unit)")
        }
    }

    @Test func theWyomingUnitIsHardenedAsTheAssistantsAndReachesTheNetwork() throws {
        let root = TestPaths.projectRoot.appendingPathComponent("systemd")
        let assistant = try String(contentsOf: root.appendingPathComponent("hotword.service"), encoding: .utf8)
        let wyoming = try String(contentsOf: root.appendingPathComponent("hotword-wyoming.service"), encoding: .utf8)
        #expect(wyoming.contains("\nExecStart=/usr/local/bin/hotword serve\n") && wyoming.contains("\nType=notify\n"))
        // Every hardening line of the assistant's unit, except those for its sound devices.
        let hardening = assistant.split(separator: "\n").drop { !$0.hasPrefix("NoNewPrivileges") }.prefix { !$0.isEmpty }
        #expect(hardening.count > 20)
        for line in hardening where !line.hasPrefix("DeviceAllow=char-alsa") {
            #expect(wyoming.contains("\n\(line)\n"), "\(line)")
        }
        #expect(wyoming.contains("\nRestrictAddressFamilies=AF_UNIX AF_INET AF_INET6\n"))
        #expect(!wyoming.contains("DeviceAllow") && !wyoming.contains("SupplementaryGroups=audio"), "no sound devices")
    }

    @Test func theInstallScriptIsValidBashAndExplainsItself() async throws {
        let bash = URL(fileURLWithPath: "/bin/bash")
        let syntax = try await HotwordBinary.run(["-n", Self.installScript.path], executable: bash)
        #expect(syntax.status == 0, "\(syntax.stderr)")
        let help = try await HotwordBinary.run([Self.installScript.path, "--help"], executable: bash)
        #expect(help.status == 0)
        #expect(help.stdout.hasPrefix("Usage: scripts/install.sh"))
        #expect(help.stdout.contains("--destdir DIR") && help.stdout.contains("--user-service"))
        let wrong = try await HotwordBinary.run([Self.installScript.path, "--prefx", "/usr"], executable: bash)
        #expect(wrong.status == 64)
        #expect(wrong.stderr == "install.sh: unknown option '--prefx' (see --help)\n")
    }

    @Test func theInstallScriptStagesEverythingUnderDestdir() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let stage = folder.appendingPathComponent("stage")
        let arguments = [Self.installScript.path, "--destdir", stage.path, "--prefix", "/usr",
                         "--binary", HotwordBinary.url.path, "--service", "--user-service"]
        let result = try await HotwordBinary.run(arguments, executable: URL(fileURLWithPath: "/bin/bash"))
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(!result.stdout.contains("created the system user"), "staging creates no user")

        var files: [String] = []
        let enumerator = try #require(FileManager.default.enumerator(atPath: stage.path))
        while let file = enumerator.nextObject() as? String {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: stage.appendingPathComponent(file).path, isDirectory: &isFolder), !isFolder.boolValue {
                files.append(file)
            }
        }
        let models = try FileManager.default.contentsOfDirectory(atPath: TestPaths.projectRoot.appendingPathComponent("Models").path)
            .filter { $0.hasSuffix(".hwks") || $0.hasSuffix(".hwse") }
        #expect(!models.isEmpty)
        #expect(Set(files) == Set([
            "usr/bin/hotword", "usr/share/hotword/hotword.example.toml", "usr/share/doc/hotword/README.md",
            "usr/share/hotword/corpora/catalogue.tsv", "etc/hotword/hotword.toml", "usr/lib/systemd/system/hotword.service", "usr/lib/systemd/user/hotword.service",
            "usr/lib/systemd/system/hotword-wyoming.service",
        ] + models.map { "usr/share/hotword/models/\($0)" }))
        func attributes(_ path: String) throws -> [FileAttributeKey: Any] {
            try FileManager.default.attributesOfItem(atPath: stage.appendingPathComponent(path).path)
        }
        #expect(try attributes("usr/bin/hotword")[.posixPermissions] as? Int == 0o755)
        #expect(try attributes("etc/hotword/hotword.toml")[.posixPermissions] as? Int == 0o640)
        #expect(try Data(contentsOf: stage.appendingPathComponent("usr/bin/hotword")) == Data(contentsOf: HotwordBinary.url))
        for (unit, command) in [("usr/lib/systemd/system/hotword.service", "run"), ("usr/lib/systemd/user/hotword.service", "run"),
                                ("usr/lib/systemd/system/hotword-wyoming.service", "serve")] {
            let text = try String(contentsOf: stage.appendingPathComponent(unit), encoding: .utf8)
            #expect(text.contains("\nExecStart=/usr/bin/hotword \(command)\n"), "\(unit)")
            #expect(!text.contains("/usr/local"), "\(unit)")
        }

        // Again: the administrator's configuration is kept.
        try Data("# mine\n".utf8).write(to: stage.appendingPathComponent("etc/hotword/hotword.toml"))
        let again = try await HotwordBinary.run(arguments, executable: URL(fileURLWithPath: "/bin/bash"))
        #expect(again.status == 0)
        #expect(again.stdout.contains("kept \(stage.path)/etc/hotword/hotword.toml"))
        #expect(try String(contentsOf: stage.appendingPathComponent("etc/hotword/hotword.toml"), encoding: .utf8) == "# mine\n")
    }
}
