import Foundation
import HotwordTestSupport
import Testing

/// The README's exit-status table, command by command: a wrong command line is 64, a wrong
/// configuration, model or device name 78, a failure while working 1, and every message starts
/// the same way. Each command meets what applies to it of a bad value, a bad file and a runtime
/// failure (an unreachable server, a missing input, a port in use).
@Suite("exit statuses of every command")
struct ExitStatusTests {
    struct Case: CustomTestStringConvertible {
        var arguments: [String]
        var status: Int32
        var input: String?

        var testDescription: String { "hotword \(arguments.joined(separator: " ")) → \(status)" }
    }

    @Test func everyCommandFailsTheREADMEsWay() async throws {
        _ = ALSATestDevices.configPath
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        func file(_ name: String, _ text: String) throws -> String {
            let url = folder.appendingPathComponent(name)
            try Data(text.utf8).write(to: url)
            return url.path
        }
        let bad = try file("bad.toml", "[wake]\nsensitivity = 7\n")
        let empty = try file("empty.toml", "")
        let offline = try file("offline.toml", """
            [susi]
            server = "http://127.0.0.1:1"
            retries = 0
            token_file = "\(folder.appendingPathComponent("token.json").path)"
            """)
        let brokenHistory = try file("broken-history.toml", "[history]\nfile = \"\(try file("history.sqlite", "not a database"))\"\n")
        let badModel = try file("bad.hwks", "not a model")
        let catalogue = try file("catalogue.tsv", ["speech_commands", "speech-commands", "100", "sha256:" + String(repeating: "0", count: 64),
                                                   "CC BY 4.0", "http://127.0.0.1:1/sc.tar.gz", "words"].joined(separator: "\t") + "\n")
        let missing = folder.appendingPathComponent("missing").path
        let missingWAV = folder.appendingPathComponent("missing.wav").path
        let out = folder.appendingPathComponent("out").path
        let device = ALSATestDevices.missingName
        // A port something listens on already.
        let busy = try TestHTTPServer { _ in TestHTTPResponse(status: 200, contentType: "text/plain", body: "") }
        defer { busy.shutdown() }
        let busyPort = try #require(busy.baseURL.port)

        let cases: [Case] = [
            Case(arguments: ["bogus"], status: 64),
            Case(arguments: ["run", "--gain", "0"], status: 64),
            Case(arguments: ["run", "--config", bad], status: 78),
            Case(arguments: ["run", "--config", empty, "--device", device], status: 78),
            Case(arguments: ["serve", "--gain", "0"], status: 64),
            Case(arguments: ["serve", "--config", bad], status: 78),
            Case(arguments: ["serve", "--config", empty, "--no-zeroconf", "--model", "computer", "--wyoming", "tcp://127.0.0.1:\(busyPort)"], status: 1),
            Case(arguments: ["ask", "hi", "--server", "ftp://x"], status: 64),
            Case(arguments: ["ask", "hi", "--speak", "--voice", "xx-none"], status: 64),
            Case(arguments: ["ask", "hi", "--config", bad], status: 78),
            Case(arguments: ["ask", "hi", "--config", offline], status: 1),
            Case(arguments: ["skills", "--server", "nowhere"], status: 64),
            Case(arguments: ["skills", "--config", bad], status: 78),
            Case(arguments: ["skills", "--config", offline], status: 1),
            Case(arguments: ["login", "--server", "nowhere"], status: 64),
            Case(arguments: ["login", "--config", bad], status: 78),
            Case(arguments: ["login", "--login", "me@example.org", "--config", offline], status: 1, input: "secret\n"),
            Case(arguments: ["logout", "--server", "nowhere"], status: 64),
            Case(arguments: ["logout", "--config", bad], status: 78),
            Case(arguments: ["whoami", "--server", "nowhere"], status: 64),
            Case(arguments: ["whoami", "--config", bad], status: 78),
            Case(arguments: ["whoami", "--config", offline], status: 1),
            Case(arguments: ["password", "--server", "nowhere"], status: 64),
            Case(arguments: ["password", "--config", bad], status: 78),
            Case(arguments: ["password", "--config", offline], status: 1, input: "old\nNew-pa55word\n"),
            Case(arguments: ["feedback", "sideways"], status: 64),
            Case(arguments: ["feedback", "positive", "--config", bad], status: 78),
            Case(arguments: ["feedback", "positive", "--config", brokenHistory], status: 1),
            Case(arguments: ["history", "--last", "0"], status: 64),
            Case(arguments: ["history", "--config", bad], status: 78),
            Case(arguments: ["history", "--config", brokenHistory], status: 1),
            Case(arguments: ["history", "clear", "--last", "3"], status: 64),
            Case(arguments: ["history", "clear", "--config", bad], status: 78),
            Case(arguments: ["history", "clear", "--config", brokenHistory], status: 1),
            Case(arguments: ["history", "server", "--server", "nowhere"], status: 64),
            Case(arguments: ["history", "server", "--config", bad], status: 78),
            Case(arguments: ["history", "server", "--config", offline], status: 1),
            Case(arguments: ["settings", "bogus"], status: 64),
            Case(arguments: ["settings", "pull", "--server", "nowhere"], status: 64),
            Case(arguments: ["settings", "pull", "--config", bad], status: 78),
            Case(arguments: ["settings", "pull", "--config", offline], status: 1),
            Case(arguments: ["settings", "push", "--server", "nowhere"], status: 64),
            Case(arguments: ["settings", "push", "--config", bad], status: 78),
            Case(arguments: ["settings", "push", "--config", offline], status: 1),
            Case(arguments: ["config", "check"], status: 64),
            Case(arguments: ["config", "check", bad], status: 78),
            Case(arguments: ["config", "check", missing], status: 78),
            Case(arguments: ["say", "hi", "--rate", "1000"], status: 64),
            Case(arguments: ["say", "hi", "--config", bad], status: 78),
            Case(arguments: ["say", "hi", "--config", empty, "--playback-device", device], status: 78),
            Case(arguments: ["say", "hi", "--config", empty, "--backend", "command", "--command", missing], status: 1),
            Case(arguments: ["transcribe", missingWAV, "--backend", "bogus"], status: 64),
            Case(arguments: ["transcribe", missingWAV, "--config", bad], status: 78),
            Case(arguments: ["transcribe", missingWAV, "--config", empty], status: 1),
            Case(arguments: ["devices", "--all"], status: 64),
            Case(arguments: ["record", out, "--seconds", "0"], status: 64),
            Case(arguments: ["record", out, "--seconds", "1", "--device", device], status: 78),
            Case(arguments: ["detect", missingWAV, "--sensitivity", "x"], status: 64),
            Case(arguments: ["detect", missingWAV, "--model", badModel], status: 78),
            Case(arguments: ["detect", missingWAV, "--model", "computer"], status: 1),
            Case(arguments: ["bench", "--minutes", "0"], status: 64),
            Case(arguments: ["bench", "--model", badModel], status: 78),
            Case(arguments: ["bench", "--model", "computer", "--audio", missingWAV], status: 1),
            Case(arguments: ["synthesize", "hey x", "--out", out, "--max-clips", "0"], status: 64),
            Case(arguments: ["synthesize", "hey x", "--out", "/proc/hotword", "--max-clips", "1"], status: 1),
            Case(arguments: ["train", "--keyword", "x", "--positives", missing, "--out", out, "--epochs", "many"], status: 64),
            Case(arguments: ["train", "--keyword", "x", "--positives", missing, "--negatives", missing, "--out", out], status: 1),
            Case(arguments: ["enroll", "--keyword", ""], status: 64),
            Case(arguments: ["enroll", "--keyword", "x", "--device", device], status: 78),
            Case(arguments: ["enroll", "--keyword", "x", "--files", missingWAV], status: 1),
            Case(arguments: ["eval", "--model", "computer", "--passes", "0"], status: 64),
            Case(arguments: ["eval", "--model", badModel], status: 78),
            Case(arguments: ["eval", "--model", "computer", "--positives", missing], status: 1),
            Case(arguments: ["tune", "--model", "computer", "--target-fa-per-hour=-1"], status: 64),
            Case(arguments: ["tune", "--model", badModel], status: 78),
            Case(arguments: ["tune", "--model", "computer", "--positives", missing], status: 1),
            Case(arguments: ["ensemble", badModel, "--out", out], status: 64),
            Case(arguments: ["ensemble", badModel, badModel, "--out", out], status: 78),
            Case(arguments: ["ensemble", "computer", "computer", "--out", out], status: 1),
            Case(arguments: ["data", "bogus"], status: 64),
            Case(arguments: ["data", "list", "--catalogue", bad], status: 78),
            Case(arguments: ["data", "fetch", "no_such_corpus"], status: 64),
            Case(arguments: ["data", "fetch", "speech_commands", "--catalogue", bad], status: 78),
            Case(arguments: ["data", "fetch", "speech_commands", "--catalogue", catalogue, "--dir", "/proc/hotword"], status: 1),
        ]
        for test in cases {
            let result = try await HotwordBinary.run(test.arguments, input: test.input)
            #expect(result.status == test.status, "\(test.testDescription): \(result.stderr)")
            #expect(result.stderr.hasPrefix("Error: "), "\(test.testDescription): \(result.stderr)")
        }

        // An unknown command is named, with the commands there are; each of them is covered above.
        let unknown = try await HotwordBinary.run(["bogus"])
        let prefix = "Error: unknown command 'bogus'; the commands of hotword are: "
        #expect(unknown.stderr.hasPrefix(prefix), "\(unknown.stderr)")
        let commands = unknown.stderr.dropFirst(prefix.count).prefix { $0 != "\n" }.components(separatedBy: ", ")
        #expect(commands.count > 20)
        for command in commands {
            #expect(cases.contains { $0.arguments.first == command }, "no case for hotword \(command)")
        }
    }
}
