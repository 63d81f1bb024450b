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
