import Foundation
import HotwordTestSupport
import Testing

@Suite("hotword ask")
struct AskCommandTests {
    @Test func printsTheAnswerAndTheTable() async throws {
        let server = try SUSITestServer(fallback: .table)
        defer { server.shutdown() }
        let result = try await HotwordBinary.run(["ask", "stock quotes", "--server", server.baseURL.absoluteString, "--language", "de"])
        #expect(result.status == 0)
        #expect(result.stdout == """
            SUSI: Here is a currency rate table:
            Valuta   Quota
            -------  -------
            EUR/USD  1.09302
            USD/JPY  113.326
            GBP/USD  1.27564

            """)
        #expect(result.stderr == "")
        let request = try #require(server.chatRequests.first)
        #expect(request.query("q") == "stock quotes")
        #expect(request.query("language") == "de")
        #expect(request.header("User-Agent")?.hasPrefix("hotword/") == true)
    }

    /// An answer of megabytes was printed whole; escape sequences, bells and NULs reached the terminal.
    @Test func aHugeAnswerIsCutAndControlCharactersAreRemoved() async throws {
        let long = try SUSITestServer(fallback: .answer(String(repeating: "la ", count: 1_000_000)))
        defer { long.shutdown() }
        let cut = try await HotwordBinary.run(["ask", "sing", "--server", long.baseURL.absoluteString])
        #expect(cut.status == 0)
        #expect(cut.stdout.count < 21_000 && cut.stdout.hasSuffix(" … (cut: longer than 20000 characters)\n"), "\(cut.stdout.suffix(80))")
        let escapes = try SUSITestServer(fallback: .answer("Red \u{1B}[31malert\u{07}\u{00}\u{9B}!"))
        defer { escapes.shutdown() }
        let cleaned = try await HotwordBinary.run(["ask", "colour", "--server", escapes.baseURL.absoluteString])
        #expect(cleaned.stdout == "SUSI: Red [31malert!\n")
    }

    @Test func plannedAnswersAreMarkedWithTheirDelay() async throws {
        let server = try SUSITestServer(fallback: .planned("Stretch!", delayMilliseconds: 120_000))
        defer { server.shutdown() }
        let result = try await HotwordBinary.run(["ask", "remind me to stretch in 2 minutes", "--server", server.baseURL.absoluteString])
        #expect(result.stdout == "SUSI: OK, I will remind you.\n[in 2 min] SUSI: Stretch!\n")
    }

    @Test func jsonPrintsTheReplyAsReceived() async throws {
        let server = try SUSITestServer(fallback: .answer("Hi!"))
        defer { server.shutdown() }
        let result = try await HotwordBinary.run(["ask", "hi", "--json", "--server", server.baseURL.absoluteString])
        #expect(result.status == 0)
        let reply = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        #expect(reply?["query"] as? String == "hi")
        #expect((reply?["answers"] as? [Any])?.count == 1)
    }

    @Test func verboseReportsWhatCannotBeDone() async throws {
        let server = try SUSITestServer(fallback: .actions([
            #"{"type": "answer", "expression": "Louder!"}"#, #"{"type": "audio_volume", "volume": 80}"#,
            #"{"type": "hologram"}"#,
        ]))
        defer { server.shutdown() }
        let quiet = try await HotwordBinary.run(["ask", "louder", "--server", server.baseURL.absoluteString])
        #expect(quiet.stdout == "SUSI: Louder!\n")
        #expect(quiet.stderr == "")
        let verbose = try await HotwordBinary.run(["ask", "louder", "--verbose", "--server", server.baseURL.absoluteString])
        #expect(verbose.stdout == "SUSI: Louder!\n")
        #expect(verbose.stderr.contains("(not done by `hotword ask`: set volume to 80%)\n"))
        #expect(verbose.stderr.contains("(SUSI sent an action this client does not know: \"hologram\")\n"))
        #expect(verbose.stderr.contains("GET \(server.baseURL.absoluteString)/susi/chat.json?q=louder"))
    }

    @Test func unreachableServerGivesOneLineAndFailure() async throws {
        let result = try await HotwordBinary.run(["ask", "hi", "--server", "http://127.0.0.1:1"])
        #expect(result.status == 1)
        #expect(result.stdout == "")
        #expect(result.stderr.hasPrefix("Error: SUSI server unreachable: couldn't connect to http://127.0.0.1:1/susi/chat.json?q=hi"))
        #expect(result.stderr.filter { $0 == "\n" }.count == 1)
    }

    @Test func htmlErrorPageGivesOneLineAndFailure() async throws {
        let server = try SUSITestServer(fallback: .htmlError(status: 500))
        defer { server.shutdown() }
        let result = try await HotwordBinary.run(["ask", "crash", "--server", server.baseURL.absoluteString])
        #expect(result.status == 1)
        #expect(result.stdout == "")
        #expect(result.stderr.hasPrefix("Error: SUSI server error: "))
        #expect(result.stderr.hasSuffix("answered HTTP 500: Error 500 java.lang.IndexOutOfBoundsException: Index: 0, Size: 0 (3 attempts)\n"))
        #expect(result.stderr.filter { $0 == "\n" }.count == 1)
    }

    @Test func badServerURLIsAUsageError() async throws {
        let result = try await HotwordBinary.run(["ask", "hi", "--server", "ftp://example.org"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--server must be an http or https URL"))
    }

    @Test func speakSaysTheAnswerThroughTheLoudspeaker() async throws {
        let server = try SUSITestServer(fallback: .planned("Stretch your legs!", delayMilliseconds: 60_000))
        defer { server.shutdown() }
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let played = folder.appendingPathComponent("played.raw")
        let result = try await HotwordBinary.run(["ask", "remind me to stretch", "--speak", "--server", server.baseURL.absoluteString,
                                                  "--playback-device", ALSATestDevices.playback(into: played)])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "SUSI: OK, I will remind you.\n[in 1 min] SUSI: Stretch your legs!\n")
        // "OK, I will remind you." at 48 kHz (the planned answer is only shown): about a second.
        let samples = ALSATestDevices.samples(ofRaw: try Data(contentsOf: played))
        let seconds = Double(samples.count) / 48_000
        #expect((0.6...3).contains(seconds), "played \(seconds) s")
        #expect(samples.contains { abs(Int($0)) > 3000 })
    }

    @Test func speakNamesAMissingLoudspeakerInOneLine() async throws {
        let server = try SUSITestServer(fallback: .answer("Hi!"))
        defer { server.shutdown() }
        _ = ALSATestDevices.configPath
        let result = try await HotwordBinary.run(["ask", "hi", "--speak", "--server", server.baseURL.absoluteString,
                                                  "--playback-device", ALSATestDevices.missingName])
        // A name ALSA does not know is a configuration error, as for `run` (README's exit statuses).
        #expect(result.status == 78)
        #expect(result.stdout == "SUSI: Hi!\n")
        #expect(result.stderr == "Error: playback device '\(ALSATestDevices.missingName)' could not be opened: No such file or directory"
            + " — list devices with `hotword devices` and choose one with --playback-device NAME\n")
    }
}
