import Foundation
import HotwordAudio
import HotwordTestSupport
import Testing

/// `hotword serve` driven by a client no one here wrote: the reference implementation (PyPI
/// `wyoming` 1.10.2, scripts/python-deps.sh) through Tests/WyomingClient/wyoming_client.py.
@Suite final class ServeCommandTests {
    static let keywords = TestPaths.sharedData.appendingPathComponent("keywords")
    // Clips the shipped models detect (`hotword detect`): "computer" spoken 1.3–2.0 s, "jarvis" at about 1.9 s.
    static let computerClip = keywords.appendingPathComponent("computer/24678e0b-4c73-4157-8a1f-50cc8f7b4020.flac")
    static let jarvisClip = keywords.appendingPathComponent("jarvis/00aba123-ae3a-4e0a-8603-9f7277b7d41f.flac")
    static let speechClip = TestPaths.sharedData.appendingPathComponent("speech/speechocean762/SPEAKER0044_000440005.flac")
    static let clientScript = TestPaths.projectRoot.appendingPathComponent("Tests/WyomingClient/wyoming_client.py")

    let folder: URL

    init() throws {
        folder = try TestPaths.temporaryDirectory("serve-cli")
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    /// `hotword serve` on 127.0.0.1 and a port the system chose, with no configuration file.
    private func serve(_ arguments: [String] = ["--model", "computer", "--model", "jarvis"],
                       at endpoint: String = "tcp://127.0.0.1:0", config toml: String = "",
                       environment: [String: String] = [:]) async throws -> (RunningHotword, String) {
        let config = folder.appendingPathComponent("hotword.toml")
        try Data(toml.utf8).write(to: config)
        let server = try RunningHotword(["serve", "--wyoming", endpoint, "--no-zeroconf", "--config", config.path] + arguments,
                                        environment: environment)
        let listening = "listening on "
        #expect(await server.waitForErrorLine(timeout: .seconds(30)) { $0.contains(listening) }, "\(server.errorLines)")
        let line = try #require(server.errorLines.first { $0.contains(listening) })
        let uri = String(line[line.range(of: listening)!.upperBound...].split(separator: " ")[0])
        return (server, uri)
    }

    /// A recording as a 16-bit WAV the Python client reads.
    private func wav(_ clip: URL) throws -> String {
        let url = folder.appendingPathComponent(clip.deletingPathExtension().lastPathComponent + ".wav")
        try AudioFileWriter.writeWAV(AudioFileReader.read(clip).samples, to: url, sampleRate: 16_000)
        return url.path
    }

    /// The reference client's events, one JSON object per line.
    private static func client(_ uri: String, _ arguments: [String]) async throws -> [[String: Any]] {
        let result = try await HotwordBinary.run(["python3", Self.clientScript.path, uri] + arguments,
                                                 executable: URL(fileURLWithPath: "/usr/bin/env"), timeout: .seconds(60))
        #expect(result.status == 0, "client \(arguments): \(result.stderr)")
        return result.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    private func types(_ events: [[String: Any]]) -> [String] { events.compactMap { $0["type"] as? String } }

    private func detections(_ events: [[String: Any]]) -> [(name: String, timestamp: Int)] {
        events.filter { $0["type"] as? String == "detection" }.compactMap { event in
            let data = event["data"] as? [String: Any]
            return (data?["name"] as? String ?? "", data?["timestamp"] as? Int ?? -1)
        }
    }

    /// Where speech is in a clip, in ms: the first and last 10 ms frame 20 dB over the quietest.
    private func spokenSpan(_ clip: URL) throws -> ClosedRange<Int> {
        let samples = try AudioFileReader.read(clip).samples
        let levels = stride(from: 0, to: samples.count - 160, by: 160).map { start in
            (samples[start..<start + 160].map { $0 * $0 }.reduce(0, +) / 160).squareRoot()
        }
        let floor = max(levels.min() ?? 0, 1e-5)
        let loud = levels.indices.filter { levels[$0] > 10 * floor }
        return (loud.first ?? 0) * 10...((loud.last ?? 0) + 1) * 10
    }

    @Test func describeAnswersAnInfoTheReferenceParses() async throws {
        let (server, uri) = try await serve()
        let events = try await Self.client(uri, ["describe"])
        #expect(types(events) == ["info"])
        let wake = ((events.first?["data"] as? [String: Any])?["wake"] as? [[String: Any]])?.first
        let models = (wake?["models"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
        #expect(wake?["name"] as? String == "hotword" && models == ["computer", "jarvis"])
        _ = await server.stop()
    }

    /// In the client's format, converted by the reference's own AudioChunkConverter.
    @Test(arguments: [[], ["--rate", "44100", "--channels", "2"], ["--rate", "48000", "--width", "4"]])
    func aKeywordIsDetectedWithItsNameAndATimeInsideTheKeyword(format: [String]) async throws {
        let (server, uri) = try await serve()
        let start = 90_000  // the client's stream clock, ms
        let events = try await Self.client(uri, ["detect", try wav(Self.computerClip), "--start-ms", "\(start)"] + format)
        let found = detections(events)
        #expect(found.map(\.name) == ["computer"], "\(events)")
        #expect(!types(events).contains("not-detected"))
        let spoken = try spokenSpan(Self.computerClip)
        // The detector fires as the keyword ends: after its start, at most 250 ms after its end.
        let time = (found.first?.timestamp ?? 0) - start
        #expect(time > spoken.lowerBound && time <= spoken.upperBound + 250, "detection at \(time) ms, keyword at \(spoken) ms")
        _ = await server.stop()
    }

    @Test func speechWithoutTheKeywordIsNotDetected() async throws {
        let (server, uri) = try await serve(["--model", "computer", "--model", "jarvis", "--model", "alexa", "--model", "hey_susi"])
        let events = try await Self.client(uri, ["detect", try wav(Self.speechClip)])
        #expect(types(events) == ["not-detected", "pong"])
        _ = await server.stop()
    }

    @Test func twoClientsAtOnceEachWithItsOwnModel() async throws {
        let (server, uri) = try await serve()
        let computer = try wav(Self.computerClip), jarvis = try wav(Self.jarvisClip)
        let began = ContinuousClock.now
        // Real time, so the two streams overlap for their whole length (about 3 s each).
        async let first = Self.client(uri, ["detect", computer, "--names", "computer", "--pace", "1"])
        async let second = Self.client(uri, ["detect", jarvis, "--names", "jarvis", "--pace", "1"])
        let (a, b) = try await (first, second)
        let elapsed = ContinuousClock.now - began
        #expect(detections(a).map(\.name) == ["computer"], "\(a)")
        #expect(detections(b).map(\.name) == ["jarvis"], "\(b)")
        #expect(elapsed < .seconds(5.5), "served side by side, not one after the other: \(elapsed)")
        // And a client listening only for jarvis does not hear "computer".
        #expect(types(try await Self.client(uri, ["detect", computer, "--names", "jarvis"])) == ["not-detected", "pong"])
        _ = await server.stop()
    }

    @Test func aClientLeavingMidStreamDoesNotDisturbTheOthers() async throws {
        let (server, uri) = try await serve()
        let computer = try wav(Self.computerClip)
        async let steady = Self.client(uri, ["detect", computer, "--pace", "1"])
        async let leaving = Self.client(uri, ["detect", computer, "--pace", "1", "--stop-after-ms", "800"])
        let (kept, left) = try await (steady, leaving)
        #expect(types(left) == ["disconnected"])
        #expect(detections(kept).map(\.name) == ["computer"], "\(kept)")
        #expect(server.isRunning)
        #expect(types(try await Self.client(uri, ["describe"])) == ["info"])
        _ = await server.stop()
    }

    @Test func malformedInputClosesThatConnectionOnlyAndIsLogged() async throws {
        let (server, uri) = try await serve()
        let computer = try wav(Self.computerClip)
        async let steady = Self.client(uri, ["detect", computer, "--pace", "1"])
        let cases: [(bytes: String, logged: String)] = [
            ("garbage\\n", "header line is not a JSON object"),
            ("{\"type\": \"audio-chunk\", \"payload_length\": -5}\\n", "payload_length"),
            ("{\"data\": {}}\\n", "no \"type\""),
            // JSON nested far deeper than any decoder goes.
            ("{\"type\": \"x\", \"data\": {\"a\": " + String(repeating: "[", count: 20_000) + "}}\\n", "header line is not a JSON object"),
            // The stream ends 90 bytes short of the payload it announced.
            ("{\"type\": \"audio-chunk\", \"data\": {\"rate\": 16000, \"width\": 2, \"channels\": 1}, \"payload_length\": 100}\\n0123456789",
             "payload length mismatch"),
            // Whole events, but the payload is not whole frames of the stated format.
            ("{\"type\": \"audio-chunk\", \"data\": {\"rate\": 16000, \"width\": 2, \"channels\": 2}, \"payload_length\": 6}\\n012345",
             "not a whole number of 4-byte frames"),
        ]
        for (bytes, logged) in cases {
            let events = try await Self.client(uri, ["raw", bytes])
            #expect(types(events) == ["error", "closed"], "\(bytes): \(events)")
            #expect(await server.waitForErrorLine(timeout: .seconds(5)) { $0.contains("closed: ") && $0.contains(logged) }, "\(logged)")
        }
        #expect(detections(try await steady).map(\.name) == ["computer"], "the stream alongside was not disturbed")
        #expect(types(try await Self.client(uri, ["describe"])) == ["info"])
        #expect(server.isRunning)
        _ = await server.stop()
    }

    /// A `ping` whose data nests 400 objects, sent with the reference library, killed the server
    /// (SIGSEGV on a connection thread's 1 MiB stack); now it costs that connection.
    @Test func aDeeplyNestedEventFromTheReferenceClientCostsOnlyItsConnection() async throws {
        let (server, uri) = try await serve(["--model", "computer"])
        #expect(types(try await Self.client(uri, ["ping", "--nest", "400"])) == ["error", "closed"])
        #expect(await server.waitForErrorLine(timeout: .seconds(5)) { $0.contains("nests objects and arrays more than 64 deep") })
        #expect(types(try await Self.client(uri, ["ping", "--nest", "20"])) == ["pong"])
        #expect(server.isRunning)
        _ = await server.stop()
    }

    /// Out of open files (a limit below what the connections need), accept fails: the server
    /// pauses and tries again instead of spinning (100 % CPU and a million log lines in 5 s),
    /// and serves the waiting clients once files are free.
    @Test func outOfFilesTheServerBacksOffAndServesOnceFilesAreFree() async throws {
        let (server, uri) = try await serve(["--model", "computer"])
        let pid = server.processIdentifier
        let open = Set(try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").compactMap(Int.init))
        let firstFree = (0...).first { !open.contains($0) }!
        let limit = try await HotwordBinary.run(["prlimit", "--pid", "\(pid)", "--nofile=\(firstFree):"],
                                                executable: URL(fileURLWithPath: "/usr/bin/env"))
        #expect(limit.status == 0, "\(limit.stderr)")
        let port = try #require(Int(uri.split(separator: ":").last ?? ""))
        let waiting = try (0..<5).map { _ in try RawConnection(port: port) }
        let cpuBefore = try Self.cpuSeconds(pid)
        try await Task.sleep(for: .seconds(2))
        let cpu = try Self.cpuSeconds(pid) - cpuBefore
        #expect(cpu < 0.5, "\(cpu) s of CPU in 2 s while out of files")
        let failures = server.errorLines.filter { $0.contains("accept failed: Too many open files") }
        #expect(!failures.isEmpty && failures.count < 10, "\(failures.count) lines")
        _ = try await HotwordBinary.run(["prlimit", "--pid", "\(pid)", "--nofile=1024:"], executable: URL(fileURLWithPath: "/usr/bin/env"))
        #expect(types(try await Self.client(uri, ["describe"])) == ["info"])
        #expect(waiting.count == 5 && server.isRunning)
        _ = await server.stop()
    }

    /// 99 connections each holding a large header and a 4 MiB payload one byte short took the
    /// server from 113 to 767 MB; their unfinished events now share 64 MiB, and a good client is served.
    @Test func connectionsHoldingHugeUnfinishedEventsShareABoundedMemory() async throws {
        let (server, uri) = try await serve(["--model", "computer"])
        let port = try #require(Int(uri.split(separator: ":").last ?? ""))
        let header = "{\"type\": \"audio-chunk\", \"pad\": \"\(String(repeating: "x", count: 512 * 1024))\", "
            + "\"data\": {\"rate\": 16000, \"width\": 2, \"channels\": 1}, \"payload_length\": \(4 << 20)}\n"
        let event = Array(header.utf8) + [UInt8](repeating: 0, count: (4 << 20) - 1)
        do {
            let holders = try (0..<24).map { _ in try RawConnection(port: port) }
            for holder in holders { _ = holder.send(event) }
            #expect(types(try await Self.client(uri, ["describe"])) == ["info"])
        }
        let peak = try #require(ProcessStatus.kibibytes("VmHWM", of: server.processIdentifier))
        #expect(peak < 150 * 1024, "the server's resident memory peaked at \(peak / 1024) MiB")
        #expect(server.errorLines.contains { $0.contains("over 64 MiB") })
        // Once they are closed, their memory goes back to the system (it stayed at 480–660 MB).
        try await Task.sleep(for: .seconds(2))
        let after = try #require(ProcessStatus.kibibytes("VmRSS", of: server.processIdentifier))
        #expect(after < peak - 40 * 1024, "resident \(after / 1024) MiB after the connections closed, peak \(peak / 1024) MiB")
        _ = await server.stop()
    }

    /// User and system CPU time a process has used, from /proc/PID/stat.
    private static func cpuSeconds(_ pid: Int32) throws -> Double {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        // The fields after the command's closing parenthesis: state is the 3rd field, utime the 14th.
        let fields = stat[stat.range(of: ")", options: .backwards)!.upperBound...].split(separator: " ")
        let ticks = try #require(Double(fields[11])) + (try #require(Double(fields[12])))
        return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    @Test func aConnectionCapTheOpenFilesLimitCannotServeIsAConfigurationError() async throws {
        let config = folder.appendingPathComponent("many.toml")
        try Data("[wyoming]\nmax_connections = 5000\n".utf8).write(to: config)
        let check = try await HotwordBinary.run(["prlimit", "--nofile=1024:1024", HotwordBinary.url.path, "config", "check", config.path],
                                                executable: URL(fileURLWithPath: "/usr/bin/env"))
        #expect(check.status == 78 && check.stderr.contains("max_connections") && check.stderr.contains("LimitNOFILE"), "\(check.stderr)")
        let serve = try await HotwordBinary.run(["prlimit", "--nofile=1024:1024", HotwordBinary.url.path, "serve", "--config", config.path,
                                                 "--no-zeroconf", "--model", "computer", "--wyoming", "tcp://127.0.0.1:0"],
                                                executable: URL(fileURLWithPath: "/usr/bin/env"))
        #expect(serve.status == 78 && serve.stderr.contains("max_connections = 5000 needs 5064 open files"), "\(serve.stderr)")
    }

    /// As `hotword run`'s listener, the accepting thread pings the service watchdog
    /// (`WatchdogSec=` in hotword-wyoming.service): a stuck server is restarted.
    @Test func theServiceWatchdogIsPingedWhileServing() async throws {
        let socket = try NotifySocket(path: folder.appendingPathComponent("notify").path)
        defer { socket.close() }
        let (server, uri) = try await serve(["--model", "computer"],
                                            environment: ["NOTIFY_SOCKET": socket.address, "WATCHDOG_USEC": "2000000"])
        #expect(types(try await Self.client(uri, ["describe"])) == ["info"])
        let pinged = await socket.wait(timeout: .seconds(15)) { $0.filter { $0.fields["WATCHDOG"] == "1" }.count >= 2 }
        #expect(pinged, "\(socket.messages.map(\.text))")
        _ = await server.stop()
    }

    @Test func anIdleConnectionIsClosedAndLogged() async throws {
        let (server, uri) = try await serve(["--model", "computer"], config: "[wyoming]\nidle_timeout_s = 1\n")
        let began = ContinuousClock.now
        #expect(types(try await Self.client(uri, ["raw", "", "--keep-open"])) == ["closed"])
        #expect(ContinuousClock.now - began < .seconds(6))
        #expect(await server.waitForErrorLine(timeout: .seconds(5)) { $0.contains("closed: nothing sent for 1.0 seconds") })
        _ = await server.stop()
    }

    @Test func aUnixSocketServesToo() async throws {
        let socket = folder.appendingPathComponent("wyoming.sock").path
        let (server, uri) = try await serve(["--model", "computer"], at: "unix://\(socket)")
        #expect(uri == "unix://\(socket)")
        let events = try await Self.client(uri, ["detect", try wav(Self.computerClip)])
        #expect(detections(events).map(\.name) == ["computer"])
        let stopped = await server.stop(signal: SIGTERM)
        #expect(stopped.status == 0)
        #expect(!FileManager.default.fileExists(atPath: socket), "the socket file is removed at the end")
    }

    /// `--sensitivity NAME=VALUE` and `--no-check-phrase`, as the docs write them, are taken.
    @Test func sensitivityByNameAndNoCheckPhraseAreTaken() async throws {
        let (server, _) = try await serve(["--model", "computer", "--sensitivity", "computer=0.6", "--no-check-phrase"])
        #expect(await server.stop().status == 0)
        let config = folder.appendingPathComponent("empty.toml")
        try Data().write(to: config)
        let unknown = try await HotwordBinary.run(["serve", "--config", config.path, "--no-zeroconf", "--model", "computer",
                                                   "--sensitivity", "hey_susi=0.8"])
        #expect(unknown.status == 64 && unknown.stderr.hasPrefix("Error: --sensitivity 'hey_susi=0.8': no keyword 'hey_susi'"),
                "\(unknown.stderr)")
    }

    @Test func theHelpSaysWhichModelsItServesByDefault() async throws {
        let help = try await HotwordBinary.run(["serve", "--help"])
        #expect(help.status == 0)
        let text = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(text.contains("for serve, [wyoming] models, which are every bundled model"), "\(help.stdout)")
    }

    @Test func aWrongAddressOrModelIsAConfigurationError() async throws {
        let wrongAddress = try await HotwordBinary.run(["serve", "--wyoming", "http://x:1"])
        #expect(wrongAddress.status == 64 && wrongAddress.stderr.contains("tcp://HOST:PORT"), "\(wrongAddress.stderr)")
        let config = folder.appendingPathComponent("bad.toml")
        try Data("[wyoming]\nmodels = [\"no_such_model\"]\n".utf8).write(to: config)
        let wrongModel = try await HotwordBinary.run(["serve", "--config", config.path, "--no-zeroconf"])
        #expect(wrongModel.status == 78 && wrongModel.stderr.contains("no_such_model"), "\(wrongModel.stderr)")
    }
}
