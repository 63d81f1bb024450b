import Foundation
import HotwordAssistant
import HotwordTestSupport
import HotwordWyoming
import Testing

/// The assistant hearing arrays (`QueuedAudio`) instead of a microphone, as fast as it can: the
/// shipped wake-word model, espeak-ng's voice, real speech-to-text programs and the SUSI test
/// server, no loudspeaker (no cue, no speech output). The conversation's states one by one,
/// and a wake word in each.
@Suite("Conversation, from arrays")
struct ConversationTests {
    struct Rig {
        let folder: URL
        let microphone = QueuedAudio()
        let server: SUSITestServer
        let assistant: Assistant
        let log = AssistantTests.EventLog()
        let running: Task<Void, Never>

        init(answers: [SUSITestServer.Reply] = [], adjust: (inout AssistantConfiguration) -> Void = { _ in }) async throws {
            folder = try TestPaths.temporaryDirectory()
            server = try SUSITestServer(fallback: .answer("I have nothing more to say."))
            for answer in answers { server.enqueue(answer) }
            var configuration = AssistantConfiguration(clientVersion: "test")
            configuration.cue.enabled = false
            configuration.tts.backend = .none
            configuration.susi.server = server.baseURL
            configuration.susi.retry = .never
            configuration.history.file = folder.appendingPathComponent("history.sqlite")
            configuration.susiLogin.tokenFile = folder.appendingPathComponent("susi-token.json")
            configuration.skillCacheFolder = folder.appendingPathComponent("susi-skills")
            adjust(&configuration)
            let log = log
            assistant = try await Assistant(configuration: configuration, microphone: microphone) { log.append($0) }
            let assistant = assistant
            running = Task { await assistant.run() }
        }

        /// A speech-to-text program (`{wav}` its argument) running `body`.
        static func recognizer(_ body: String, in folder: URL) throws -> [String] {
            [try SpeechFixtures.script("stt-\(UUID().uuidString)", in: folder, body), "{wav}"]
        }

        func stop() async {
            assistant.stop()
            await running.value
            server.shutdown()
            try? FileManager.default.removeItem(at: folder)
        }
    }

    static func silence(_ seconds: Double) -> [Float] { AssistantTests.silence(seconds) }

    /// `text` said after `pause` (the first needs 2.5 s: the detector hears 1.8 s before it can
    /// detect), then silence that ends the question.
    static func question(_ text: String, pause: Double = 2.5) async throws -> [Float] {
        silence(pause) + (try await SpeechFixtures.speech(text)) + silence(1.5)
    }

    /// How long any of these may wait for what it waits for (they take well under a second).
    static let patience = Duration.seconds(20)

    static func errors(_ log: AssistantTests.EventLog) -> [AssistantEvent] {
        log.events.filter { if case .error = $0 { true } else { false } }
    }

    @Test func aQuestionIsHeardTranscribedAskedAndAnswered() async throws {
        let scripts = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: scripts) }
        let stt = try Rig.recognizer("echo what is the weather like today", in: scripts)
        let rig = try await Rig(answers: [.answer("Sunny.")]) {
            $0.stt.backend = .command
            $0.stt.commandArguments = stt
        }
        rig.microphone.say(try await Self.question("hey susi, what is the weather like today"))
        let done = await rig.log.wait(timeout: Self.patience) { rig.log.entered(.listening) == 2 }
        await rig.stop()

        #expect(done, "\(rig.log.events)")
        let kinds = rig.log.events.map { event -> String in
            switch event {
            case .state(let state): state.rawValue
            case .wake: "wake"
            case .utteranceStart: "start"
            case .utteranceEnd(_, let reason): "end \(reason.rawValue)"
            case .transcript(let text, _, _): "you: \(text)"
            case .answer(let text): "susi: \(text)"
            default: "\(event)"
            }
        }
        #expect(kinds == ["listening", "wake", "recording", "start", "end trailing_silence", "transcribing",
                          "you: what is the weather like today", "asking", "speaking", "susi: SUSI: Sunny.", "listening"])
        #expect(rig.server.chatRequests.map { $0.query("q") } == ["what is the weather like today"])
    }

    /// A Wyoming speech server that stops and comes back: pocketsphinx hears the questions
    /// meanwhile, the outage is reported once, and the server is used again once it is back.
    @Test func questionsAreHeardWhileTheSpeechServerIsDownAndByItWhenItIsBack() async throws {
        var server: PythonSpeechServer? = try PythonSpeechServer()
        let endpoint = try #require(server?.endpoint)
        guard case .tcp(_, let port) = endpoint else { Issue.record("\(endpoint)"); return }
        let rig = try await Rig {
            $0.stt.backend = .wyoming
            $0.stt.wyoming = WyomingServiceConfiguration(endpoint: endpoint, timeout: .seconds(10))
        }
        func ask(_ question: String, answered: Int) async throws -> Bool {
            rig.microphone.say(try await Self.question("hey susi, \(question)"))
            // More patience than the others: the first question of the outage loads pocketsphinx too.
            return await rig.log.wait(timeout: Self.patience * 3) { rig.log.entered(.listening) == answered + 1 }
        }
        var answered = [try await ask("what is the weather like today", answered: 1)]
        server = nil  // stopped: its port refuses connections
        answered.append(try await ask("what time is it", answered: 2))
        answered.append(try await ask("what is the weather like today", answered: 3))
        server = try PythonSpeechServer(port: Int(port))
        answered.append(try await ask("what time is it", answered: 4))
        await rig.stop()

        #expect(answered == [true, true, true, true], "\(rig.log.events)")
        let engines = rig.log.events.compactMap { if case .transcript(_, let engine, _) = $0 { engine } else { nil } }
        #expect(engines == [.wyoming, .pocketsphinx, .pocketsphinx, .wyoming])
        let transcripts = rig.log.transcripts
        #expect(transcripts.count == 4 && transcripts[0].hasPrefix("heard ") && transcripts[3].hasPrefix("heard "), "\(transcripts)")
        #expect(transcripts.count == 4 && !transcripts[1].hasPrefix("heard ") && !transcripts[2].hasPrefix("heard "), "\(transcripts)")
        let outages = rig.log.events.filter { if case .speechToTextLost = $0 { true } else { false } }
        guard case .speechToTextLost(.wyoming, .pocketsphinx, let message)? = outages.first, outages.count == 1 else {
            Issue.record("one outage reported: \(outages)")
            return
        }
        #expect(message.contains("\(endpoint)") && message.contains("refused"), "\(message)")
        #expect(rig.log.events.filter { $0 == .speechToTextRestored(engine: .wyoming) }.count == 1)
        #expect(Self.errors(rig.log).isEmpty, "\(Self.errors(rig.log))")
        #expect(rig.server.chatRequests.map { $0.query("q") } == transcripts.filter { !$0.isEmpty })
    }

    @Test func withoutAFallbackAQuestionTheServerCannotHearIsApologisedFor() async throws {
        let endpoint = try PythonSpeechServer().endpoint  // gone once made: its port refuses
        let rig = try await Rig {
            $0.stt.backend = .wyoming
            $0.stt.fallback = .none
            $0.stt.wyoming = WyomingServiceConfiguration(endpoint: endpoint, timeout: .seconds(10))
        }
        rig.microphone.say(try await Self.question("hey susi, what time is it"))
        let done = await rig.log.wait(timeout: Self.patience) { rig.log.entered(.listening) == 2 }
        await rig.stop()

        #expect(done, "\(rig.log.events)")
        #expect(rig.log.transcripts.isEmpty && rig.server.chatRequests.isEmpty)
        #expect(rig.log.events.contains(.answer("SUSI: Sorry, I could not make out what you said.")), "\(rig.log.events)")
        guard case .error(.transcribe, let message)? = Self.errors(rig.log).first else { Issue.record("\(rig.log.events)"); return }
        #expect(message.hasPrefix("speech to text (wyoming): ") && message.contains("refused"), "\(message)")
    }

    @Test func aQuestionRightAfterAnotherIsHeardWholeAndOnlyOnce() async throws {
        let rig = try await Rig(answers: [.answer("Sunny."), .answer("Ten o'clock.")])
        // Heard at once, so the second question interrupts the first while it is transcribed.
        rig.microphone.say(try await Self.question("hey susi, what is the weather like today")
            + (try await Self.question("hey susi, what time is it", pause: 0)))
        // Back to listening after the second question (the third time): its recording, transcript
        // and request are all in the log by then.
        let done = await rig.log.wait(timeout: Self.patience) { rig.log.wakes == 2 && rig.log.entered(.listening) == 3 }
        await rig.stop()

        #expect(done, "\(rig.log.events)")
        #expect(rig.log.wakes == 2)
        // Heard whole: the second recording holds at least the question's own speech. (Where it
        // starts depends on when the cue after the first wake word began to play, a matter of
        // threads: pocketsphinx then hears "what time is it" or "wow i visit".)
        let question = try SpeechFixtures.spokenDuration(await EspeakSynthesizer(SpeechFixtures.recognisableVoice).synthesize("what time is it"))
        let recorded = rig.log.events.compactMap { if case .utteranceEnd(let duration, _) = $0 { duration } else { nil } }
        #expect(recorded.count == 2 && recorded[1] >= question, "\(recorded) s recorded, the question is \(question) s")
        #expect((rig.log.transcripts.last ?? "").split(separator: " ").count >= 3, "\(rig.log.transcripts)")
        #expect(rig.server.chatRequests.last?.query("q") == rig.log.transcripts.last)
    }

    @Test func aWakeWordWhileRecordingIsPartOfTheQuestion() async throws {
        let scripts = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: scripts) }
        let stt = try Rig.recognizer("echo hey susi", in: scripts)
        let rig = try await Rig {
            $0.stt.backend = .command
            $0.stt.commandArguments = stt
        }
        rig.microphone.say(try await Self.question("hey susi, hey susi, hey susi"))
        let done = await rig.log.wait(timeout: Self.patience) { rig.log.entered(.listening) == 2 }
        await rig.stop()

        #expect(done, "\(rig.log.events)")
        #expect(rig.log.wakes == 1)
        #expect(!rig.log.events.contains { if case .bargeIn = $0 { true } else { false } })
    }

    @Test func aWakeWordWhileTranscribingIsNeitherAnErrorNorAnsweredWithAnApology() async throws {
        let scripts = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: scripts) }
        // The first question keeps the recogniser busy until the wake word cancels it (which
        // stops the program, so it fails); the second is heard.
        let stt = try Rig.recognizer("""
            if [ -e "\(scripts.path)/busy" ]; then echo "what time is it"; else touch "\(scripts.path)/busy"; sleep 30; fi
            """, in: scripts)
        let rig = try await Rig(answers: [.answer("It is ten o'clock.")]) {
            $0.stt.backend = .command
            $0.stt.commandArguments = stt
        }
        rig.microphone.say(try await Self.question("hey susi, what is the weather like today"))
        let transcribing = await rig.log.wait(timeout: Self.patience) { rig.log.entered(.transcribing) == 1 }
        rig.microphone.say(try await Self.question("hey susi, what time is it", pause: 0.5))
        let answeredAgain = await rig.log.wait(timeout: Self.patience) { rig.log.entered(.listening) == 2 && rig.server.chatRequests.count == 1 }
        await rig.stop()

        #expect(transcribing && answeredAgain, "\(rig.log.events)")
        #expect(rig.log.events.contains(.bargeIn(interrupted: .transcribing)))
        #expect(Self.errors(rig.log).isEmpty, "\(rig.log.events)")
        #expect(!rig.log.events.contains { if case .answer(let text) = $0 { text.contains("Sorry") } else { false } })
        #expect(rig.log.transcripts == ["what time is it"])
    }

    @Test func aWakeWordWhileAskingAbandonsTheQuestion() async throws {
        let scripts = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: scripts) }
        let stt = try Rig.recognizer("echo what time is it", in: scripts)
        // Held back for less than the client waits (15 s), longer than the test takes.
        let rig = try await Rig(answers: [.slow(.seconds(10), .answer("Too late.")), .answer("It is ten o'clock.")]) {
            $0.stt.backend = .command
            $0.stt.commandArguments = stt
        }
        rig.microphone.say(try await Self.question("hey susi, what time is it"))
        let asking = await rig.log.wait(timeout: Self.patience) { rig.log.entered(.asking) == 1 }
        rig.microphone.say(try await Self.question("hey susi, what time is it", pause: 0.5))
        let answered = await rig.log.wait(timeout: Self.patience) { rig.log.events.contains(.answer("SUSI: It is ten o'clock.")) && rig.log.entered(.listening) == 2 }
        await rig.stop()

        #expect(asking && answered, "\(rig.log.events)")
        #expect(rig.log.events.contains(.bargeIn(interrupted: .asking)))
        #expect(Self.errors(rig.log).isEmpty, "\(rig.log.events)")
        #expect(!rig.log.events.contains { if case .answer(let text) = $0 { text.contains("Too late") } else { false } })
    }

    @Test func withoutBargeInAWakeWordWhileBusyIsIgnored() async throws {
        let scripts = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: scripts) }
        // Busy until the test has said the second wake word and it has been heard.
        let stt = try Rig.recognizer("while [ ! -e \"\(scripts.path)/go\" ]; do sleep 0.05; done; echo what time is it", in: scripts)
        let rig = try await Rig(answers: [.answer("It is ten o'clock.")]) {
            $0.stt.backend = .command
            $0.stt.commandArguments = stt
            $0.wake.bargeIn = false
        }
        rig.microphone.say(try await Self.question("hey susi, what time is it"))
        let transcribing = await rig.log.wait(timeout: Self.patience) { rig.log.entered(.transcribing) == 1 }
        rig.microphone.say(try await Self.question("hey susi, what is the weather like today", pause: 0.5))
        try await Task.sleep(for: .milliseconds(500))  // far longer than hearing it takes
        _ = FileManager.default.createFile(atPath: scripts.appendingPathComponent("go").path, contents: nil)
        let answered = await rig.log.wait(timeout: Self.patience) { rig.log.entered(.listening) == 2 }
        await rig.stop()

        #expect(transcribing && answered, "\(rig.log.events)")
        #expect(rig.log.wakes == 1)
        #expect(rig.server.chatRequests.count == 1)
    }

    @Test func nobodySpeakingAfterTheWakeWordGivesUpAfterTheTimeout() async throws {
        let rig = try await Rig()
        rig.microphone.say(Self.silence(2.5) + (try await SpeechFixtures.speech("hey susi")) + Self.silence(4))
        let gaveUp = await rig.log.wait(timeout: .seconds(10)) { rig.log.events.contains(.noSpeech) }
        await rig.stop()

        #expect(gaveUp, "\(rig.log.events)")
        #expect(rig.log.wakes == 1)
        #expect(rig.server.requests.isEmpty)
        #expect(Array(rig.log.events.suffix(2)) == [.noSpeech, .state(.listening)])
    }

    @Test func theWakeHookRunsWithTheKeywordAndTheScore() async throws {
        let scripts = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: scripts) }
        let woke = scripts.appendingPathComponent("woke")
        let hook = try SpeechFixtures.script("hook", in: scripts, "echo \"$@\" > \"\(woke.path).part\" && mv \"\(woke.path).part\" \"\(woke.path)\"")
        let rig = try await Rig { $0.events.onWake = [hook, "--led"] }
        rig.microphone.say(Self.silence(2.5) + (try await SpeechFixtures.speech("hey susi")) + Self.silence(4))
        let ran = await rig.log.wait(timeout: Self.patience) { FileManager.default.fileExists(atPath: woke.path) }
        await rig.stop()

        #expect(ran, "\(rig.log.events)")
        let words = (try? String(contentsOf: woke, encoding: .utf8))?.split(separator: " ").map(String.init) ?? []
        #expect(words.prefix(3) == ["--led", "hey", "susi"], "\(words)")
        #expect(words.count == 4 && (Float(words[3].trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) > 0.5, "the score: \(words)")
    }

    // MARK: Right after an answer

    /// A rig whose first question ("hey susi, who are you") has been answered by a skill that
    /// can be rated; the follow-up window is open.
    static func answered(adjust: (inout AssistantConfiguration) -> Void = { _ in }) async throws -> Rig {
        let rig = try await Rig(answers: [.answerFrom("I am SUSI.", skill: SUSITestServer.skillPath())], adjust: adjust)
        rig.microphone.say(try await Self.question("hey susi, who are you"))
        let answered = await rig.log.wait(timeout: Self.patience) { rig.log.entered(.listening) == 2 }
        if !answered { await rig.stop() }
        try #require(answered, "\(rig.log.events)")
        return rig
    }

    /// Says `text` half a second after the answer; true once it has been dealt with (the
    /// assistant listens again).
    static func saidAfterTheAnswer(_ text: String, to rig: Rig) async throws -> Bool {
        rig.microphone.say(try await Self.question(text, pause: 0.5))
        return await rig.log.wait(timeout: Self.patience) { rig.log.entered(.listening) == 3 }
    }

    static func ratings(_ server: SUSITestServer) -> [String?] {
        server.requests(to: "/cms/rateSkill.json").map { $0.query("rating") }
    }

    @Test func thankYouRightAfterAnAnswerRatesItWithoutTheWakeWord() async throws {
        let rig = try await Self.answered()
        let rated = try await Self.saidAfterTheAnswer("thank you", to: rig)
        await rig.stop()

        #expect(rated, "\(rig.log.events)")
        #expect(rig.log.wakes == 1)
        #expect(Self.ratings(rig.server) == ["positive"])
        #expect(rig.server.requests(to: "/cms/feedbackLog.json").first?.query("susi_reply") == "I am SUSI.")
        #expect(rig.server.chatRequests.count == 1, "the thanks was not a question")
        #expect(rig.log.transcripts.last == "thank you", "\(rig.log.transcripts)")
        let last = Array(rig.log.events.suffix(4))
        guard case .transcript("thank you", .pocketsphinx, _)? = last.first else { Issue.record("\(last)"); return }
        #expect(Array(last.dropFirst()) == [.state(.speaking), .answer("SUSI: Thank you! I told SUSI."), .state(.listening)])
    }

    @Test func otherSpeechRightAfterAnAnswerIsDroppedNotAsked() async throws {
        let rig = try await Self.answered()
        let dropped = try await Self.saidAfterTheAnswer("what time is it", to: rig)
        // With the wake word, the same words are a question.
        rig.microphone.say(try await Self.question("hey susi, what time is it", pause: 0.5))
        let asked = await rig.log.wait(timeout: Self.patience) { rig.log.entered(.listening) == 4 }
        await rig.stop()

        #expect(dropped && asked, "\(rig.log.events)")
        #expect(rig.log.entered(.transcribing) == 3, "heard and transcribed, then dropped")
        #expect(rig.server.chatRequests.map { $0.query("q") } == rig.log.transcripts, "only what followed the wake words was asked")
        #expect(rig.log.transcripts.count == 2, "the dropped speech is not shown: \(rig.log.transcripts)")
        #expect(rig.log.wakes == 2)
        #expect(Self.ratings(rig.server).isEmpty)
        #expect(!rig.log.events.contains { if case .answer(let text) = $0 { text.contains("Sorry") } else { false } })
    }

    @Test func afterTheWindowThankYouNeedsTheWakeWordAgain() async throws {
        let rig = try await Self.answered { $0.phrases.followUpSeconds = 2 }
        // 3 s after the answer: the window has closed.
        rig.microphone.say(try await Self.question("thank you", pause: 3))
        rig.microphone.say(try await Self.question("hey susi, thank you", pause: 0.5))
        let rated = await rig.log.wait(timeout: Self.patience) { rig.log.wakes == 2 && rig.log.events.last == .state(.listening) }
        await rig.stop()

        #expect(rated, "\(rig.log.events)")
        #expect(rig.log.entered(.transcribing) == 2, "the thanks without the wake word was not even transcribed")
        #expect(rig.log.wakes == 2)
        #expect(Self.ratings(rig.server) == ["positive"], "rated once, by the thanks with the wake word")
        #expect(rig.server.chatRequests.count == 1)
    }

    @Test func aWakeWordRightAfterAnAnswerAsksAsAlways() async throws {
        let rig = try await Self.answered()
        let asked = try await Self.saidAfterTheAnswer("hey susi, what time is it", to: rig)
        await rig.stop()

        #expect(asked && rig.log.wakes == 2, "\(rig.log.events)")
        let asks = rig.server.chatRequests.map { $0.query("q") }
        #expect(asks.count == 2 && asks == rig.log.transcripts, "both questions asked, neither taken for a rating: \(asks)")
        #expect(Self.ratings(rig.server).isEmpty)
    }
}
