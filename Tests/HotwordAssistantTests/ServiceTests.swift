import Foundation
import HotwordHistory
import HotwordFolders
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
        #expect(SUSIAccount.defaultTokenFile(environment: ["STATE_DIRECTORY": "/var/lib/hotword", "XDG_STATE_HOME": "/s"]).path
            == "/var/lib/hotword/susi-token.json")
        #expect(SUSIAccount.defaultTokenFile(environment: ["STATE_DIRECTORY": "/var/lib/hotword:/var/lib/other"]).path
            == "/var/lib/hotword/susi-token.json")
    }

    /// One rule for every file hotword writes (issue #49: the token and the skills cache ignored
    /// `$HOME`): the XDG variable, else its default under `$HOME`, else the service's folder.
    @Test func everyFileHotwordKeepsFollowsXDGAndHome() {
        let home = ["HOME": "/home/u"]
        #expect(SUSIAccount.defaultTokenFile(environment: home).path == "/home/u/.local/state/hotword/susi-token.json")
        #expect(HistoryLocation.defaultFile(environment: home).path == "/home/u/.local/state/hotword/history.sqlite")
        #expect(SUSISkillCatalog.defaultCacheFolder(environment: home).path == "/home/u/.cache/hotword/susi-skills")
        #expect(ConfigurationFiles.user(environment: home) == "/home/u/.config/hotword/hotword.toml")
        #expect(UserFolder.data.file("data", environment: home).path == "/home/u/.local/share/hotword/data")
        let xdg = home.merging(["XDG_STATE_HOME": "/x/state", "XDG_CACHE_HOME": "/x/cache", "XDG_CONFIG_HOME": "/x/config",
                                "XDG_DATA_HOME": "/x/data"]) { $1 }
        #expect(SUSIAccount.defaultTokenFile(environment: xdg).path == "/x/state/hotword/susi-token.json")
        #expect(SUSISkillCatalog.defaultCacheFolder(environment: xdg).path == "/x/cache/hotword/susi-skills")
        #expect(UserFolder.config.url(environment: xdg).path == "/x/config/hotword")
        #expect(UserFolder.data.url(environment: xdg).path == "/x/data/hotword")
        // An empty variable is not set (XDG); a service's folders win.
        #expect(UserFolder.cache.url(environment: home.merging(["XDG_CACHE_HOME": ""]) { $1 }).path == "/home/u/.cache/hotword")
        #expect(SUSISkillCatalog.defaultCacheFolder(environment: xdg.merging(["CACHE_DIRECTORY": "/var/cache/hotword"]) { $1 }).path
            == "/var/cache/hotword/susi-skills")
    }
}
