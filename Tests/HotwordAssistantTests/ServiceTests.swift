import Atomics
import Foundation
@testable import HotwordAssistant
import HotwordAudio
import HotwordModels
import HotwordSUSI
import HotwordTestSupport
import Testing

@Suite("Service notifier")
struct ServiceNotifierTests {
    @Test(arguments: [false, true])
    func everyMessageArrivesAsOneDatagram(abstract: Bool) async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let name = abstract ? "hotword-test-\(UUID().uuidString)" : folder.appendingPathComponent("notify").path
        let socket = try NotifySocket(path: name, abstract: abstract)
        defer { socket.close() }
        #expect(socket.address.hasPrefix(abstract ? "@" : "/"))
        let notifier = try ServiceNotifier(socket: socket.address)

        notifier.ready(status: "listening for hey_susi\non default")
        notifier.status("busy")
        notifier.reloading(status: "reloading")
        notifier.watchdog()
        notifier.stopping()
        let all = await socket.wait(timeout: .seconds(5)) { $0.count == 5 }

        #expect(all, "\(socket.messages.map(\.text))")
        let texts = socket.messages.map(\.text)
        #expect(texts.count == 5)
        #expect(texts.first == "READY=1\nSTATUS=listening for hey_susi on default", "a newline would start another assignment")
        #expect(texts.dropFirst().first == "STATUS=busy")
        let reloading = socket.messages.dropFirst(2).first?.fields ?? [:]
        #expect(reloading["RELOADING"] == "1" && reloading["STATUS"] == "reloading")
        #expect(UInt64(reloading["MONOTONIC_USEC"] ?? "") ?? 0 > 0)
        #expect(Array(texts.suffix(2)) == ["WATCHDOG=1", "STOPPING=1\nSTATUS=stopping"])
    }

    @Test func theEnvironmentSaysWhetherAndHowOftenToPing() throws {
        #expect(try ServiceNotifier.fromEnvironment([:]) == nil)
        #expect(try ServiceNotifier.fromEnvironment(["NOTIFY_SOCKET": "", "WATCHDOG_USEC": "30000000"]) == nil)
        func interval(_ environment: [String: String]) throws -> Duration? {
            try #require(try ServiceNotifier.fromEnvironment(["NOTIFY_SOCKET": "/run/notify"].merging(environment) { $1 }, processID: 42))
                .watchdogInterval
        }
        #expect(try interval([:]) == nil)
        #expect(try interval(["WATCHDOG_USEC": "30000000"]) == .seconds(15))
        #expect(try interval(["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "42"]) == .seconds(15))
        #expect(try interval(["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "43"]) == nil, "another process is watched")
        #expect(throws: ServiceNotifierError.invalidVariable(name: "WATCHDOG_USEC", value: "0", expected: "a positive number of microseconds")) {
            try interval(["WATCHDOG_USEC": "0"])
        }
        #expect(throws: ServiceNotifierError.invalidVariable(name: "WATCHDOG_PID", value: "me", expected: "a process id")) {
            try interval(["WATCHDOG_USEC": "1000", "WATCHDOG_PID": "me"])
        }
        #expect(throws: ServiceNotifierError.unusableSocket(socket: "notify", reason: "not an absolute path or an @abstract name")) {
            try ServiceNotifier.fromEnvironment(["NOTIFY_SOCKET": "notify"])
        }
        let long = "/" + String(repeating: "x", count: 107)
        #expect(throws: ServiceNotifierError.unusableSocket(socket: long, reason: "longer than the 107 bytes a socket address holds")) {
            try ServiceNotifier(socket: long)
        }
        #expect(try ServiceNotifier(socket: "@" + String(repeating: "x", count: 107)).socket.count == 108)
    }

    @Test func aManagerThatIsGoneOrDoesNotReadNeverBlocksTheSender() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let deaf = try NotifySocket(path: folder.appendingPathComponent("deaf").path, receiving: false)
        defer { deaf.close() }
        let started = ContinuousClock.now
        for socket in [deaf.address, folder.appendingPathComponent("nobody").path] {
            let notifier = try ServiceNotifier(socket: socket)
            // Far more than a socket queues (10 datagrams by default).
            for _ in 0..<1_000 { notifier.watchdog() }
            notifier.ready(status: "listening")
        }
        #expect(ContinuousClock.now - started < .seconds(1))
    }

    @Test func aServicesTokenGoesToItsStateDirectory() {
        #expect(SUSIAccount.defaultTokenFile(environment: ["STATE_DIRECTORY": "/var/lib/hotword", "XDG_CACHE_HOME": "/c"]).path
            == "/var/lib/hotword/susi-token.json")
        #expect(SUSIAccount.defaultTokenFile(environment: ["STATE_DIRECTORY": "/var/lib/hotword:/var/lib/other"]).path
            == "/var/lib/hotword/susi-token.json")
        #expect(SUSIAccount.defaultTokenFile(environment: ["XDG_CACHE_HOME": "/c"]).path == "/c/hotword/susi-token.json")
    }
}

/// The listener thread on a real (paced) ALSA microphone with tone models: its watchdog pings
/// and new settings taken up mid-stream.
@Suite("Listener as a service")
struct ListenerServiceTests {
    struct Rig {
        let folder: URL
        let microphone: PacedMicrophone
        let capture: CaptureDevice
        let ring = SampleRing(minimumCapacity: 30 * Listener.sampleRate)

        init() throws {
            _ = ALSATestDevices.configPath
            folder = try TestPaths.temporaryDirectory()
            microphone = try PacedMicrophone(folder: folder, speed: 4)
            capture = try CaptureDevice(CaptureConfiguration(device: microphone.deviceName))
        }

        /// Settings for tone keywords (name, frequency), their models saved in the folder.
        func settings(_ tones: [(String, Double)]) throws -> ListenerSettings {
            var configuration = AssistantConfiguration(clientVersion: "test")
            configuration.wake.models = try tones.map { keyword, frequency in
                let file = folder.appendingPathComponent("\(keyword).hwks").path
                try ModelStore.save(ToneModels.model(keyword: keyword, frequency: frequency), to: file)
                return file
            }
            return try ListenerSettings(configuration: configuration)
        }

        func listener(_ settings: ListenerSettings, watchdog: ServiceNotifier? = nil,
                      emit: @escaping @Sendable (ListenerEvent) -> Void) -> Listener {
            Listener(capture: capture, ring: ring, ownOutput: OwnOutputLog(capturePosition: { [ring] in ring.totalWritten }),
                     settings: settings, watchdog: watchdog, emit: emit)
        }

        func close() {
            microphone.close()
            try? FileManager.default.removeItem(at: folder)
        }
    }

    /// Wake positions as they come.
    final class Wakes: @unchecked Sendable {  // @unchecked: `found` is guarded by `lock`
        private let lock = NSLock()
        private var found: [(keyword: String, position: UInt64)] = []
        var all: [(keyword: String, position: UInt64)] { lock.withLock { found } }
        func append(_ keyword: String, _ position: UInt64) { lock.withLock { found.append((keyword, position)) } }
    }

    @Test func theListenerThreadPingsTheWatchdogAndStopsWhenItIsStuck() async throws {
        let rig = try Rig()
        defer { rig.close() }
        let socket = try NotifySocket(path: rig.folder.appendingPathComponent("notify").path)
        defer { socket.close() }
        let notifier = try ServiceNotifier(socket: socket.address, watchdogInterval: .milliseconds(100))
        let stuck = DispatchSemaphore(value: 0)
        let woken = ManagedAtomic(false)
        // The wake event is handled on the listener thread: holding it there is a stuck audio loop.
        let listener = rig.listener(try rig.settings([("beep", 1_000)]), watchdog: notifier) { event in
            guard case .wake = event else { return }
            woken.store(true, ordering: .relaxed)
            stuck.wait()
        }
        listener.start()
        func pings() -> [NotifySocket.Message] { socket.messages.filter { $0.text == "WATCHDOG=1" } }

        let pinging = await socket.wait(timeout: .seconds(10)) { _ in pings().count >= 5 }
        rig.microphone.say(ToneModels.signal(seconds: 1.5, tones: [(0.5, 1_000)]))
        let deadline = ContinuousClock.now + .seconds(10)
        while !woken.load(ordering: .relaxed), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        let wokeUp = woken.load(ordering: .relaxed)
        try #require(wokeUp, "the tone woke nothing")
        let stuckSince = ContinuousClock.now
        try await Task.sleep(for: .milliseconds(600))
        let pingsWhileStuck = pings().filter { $0.time > stuckSince + .milliseconds(20) }.count
        stuck.signal()
        let before = pings().count
        let pingingAgain = await socket.wait(timeout: .seconds(10)) { _ in pings().count >= before + 3 }
        listener.stop()

        #expect(pinging && pingingAgain)
        #expect(pingsWhileStuck == 0)
    }

    @Test func newSettingsAreTakenUpMidStreamWithoutLosingAudio() async throws {
        let rig = try Rig()
        defer { rig.close() }
        let wakes = Wakes()
        let listener = rig.listener(try rig.settings([("beep", 1_000)])) { event in
            guard case .wake(let detection, let position) = event else { return }
            wakes.append(detection.keyword, position)
        }
        listener.start()
        // 1 kHz at 0.5 s, then 2 kHz at 4 s and 1 kHz at 6.5 s: one stream, so the detections are
        // as far apart as the tones, whatever silence came before.
        rig.microphone.say(ToneModels.signal(seconds: 8, tones: [(0.5, 1_000), (4, 2_000), (6.5, 1_000)]))
        // While the first wake's question is recorded: the new models wait for its end.
        let deadline = ContinuousClock.now + .seconds(10)
        while wakes.all.isEmpty, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        listener.replace(try rig.settings([("beep", 1_000), ("boop", 2_000)]))
        try await rig.microphone.waitUntilSaid(margin: .seconds(1))
        listener.stop()

        let found = wakes.all
        #expect(found.map(\.keyword) == ["beep", "boop", "beep"], "\(found)")
        #expect(rig.ring.totalDropped == 0)
        if found.count == 3 {
            for (index, seconds) in [(1, 3.5), (2, 6.0)] {
                let apart = Double(found[index].position - found[0].position) / Double(Listener.sampleRate)
                #expect(abs(apart - seconds) < 0.05, "wake \(index) came \(apart) s after the first, not \(seconds) s")
            }
        }
    }
}
