import Foundation
import HotwordAssistant
import HotwordCore
import HotwordSUSI
import HotwordTestSupport
import Testing

@Suite("hotword.toml")
struct ConfigurationTests {
    static let defaults = AssistantConfiguration(clientVersion: "test")

    /// Applies `toml` onto the defaults; returns the result and the problems.
    func load(_ toml: String, file: String = "hotword.toml") -> (AssistantConfiguration, [ConfigError]) {
        var configuration = Self.defaults
        let errors = ConfigurationLoader.apply(toml: toml, file: file, to: &configuration)
        return (configuration, errors)
    }

    @Test func anEmptyFileKeepsTheDefaults() {
        let (configuration, errors) = load("# nothing\n")
        #expect(errors.isEmpty)
        #expect(configuration == Self.defaults)
        #expect(configuration.wake.models == ["hey_susi"])
        #expect(configuration.recording.trailingSilenceSeconds == 0.8)
        #expect(configuration.recording.maxLengthSeconds == 8)
        #expect(configuration.recording.noSpeechTimeoutSeconds == 3)
    }

    @Test func everyKeyIsRead() throws {
        let toml = """
            [audio]
            capture_device = "plughw:CARD=Mic"
            playback_device = "plughw:CARD=Speaker"
            capture_rate = 48000
            playback_rate = 44100
            period_ms = 20
            buffer_ms = 400
            gain = 2.5
            volume = 70

            [wake]
            models = ["hey_susi", "/opt/models/computer.hwks"]
            sensitivity = 0.6
            speaking_sensitivity = 0.1
            barge_in = false
            echo_tail_ms = 250

            [wake.keywords."hey susi"]
            sensitivity = 0.7
            smoothing_s = 0.2
            trigger_level = 3
            refractory_s = 4
            check_phrase = false

            [detector]
            smoothing_s = 0.1
            trigger_level = 2
            refractory_s = 1.5
            check_phrase = true

            [cue]
            enabled = false
            file = "/usr/share/sounds/ding.wav"

            [recording]
            pre_roll_ms = 400
            trailing_silence_s = 1.2
            max_length_s = 12
            no_speech_timeout_s = 4.5
            min_speech_ms = 150
            vad_margin_db = 12
            vad_min_level_db = -50

            [stt]
            backend = "command"
            fallback = "none"
            [stt.pocketsphinx]
            acoustic_model = "/m/hmm"
            language_model = "/m/lm.bin"
            dictionary = "/m/words.dict"
            log_file = "/tmp/ps.log"
            question_model = "/m/questions.arpa"
            question_weight = 0.3
            [stt.http]
            url = "http://10.0.0.2:9000/v1/audio/transcriptions"
            model = "base.en"
            language = "de"
            api_key = "sk-123"
            timeout_s = 12.5
            [stt.command]
            arguments = ["whisper-cli", "-f", "{wav}"]
            timeout_s = 20
            [stt.whisper]
            model = "/m/whisper-tiny.en"
            audio = "utterance"
            threads = 3

            [susi]
            server = "http://localhost:4000"
            language = "de"
            device_type = "Kitchen Radio"
            timezone_offset = -120
            follow_up_s = 0
            latitude = 52.52
            longitude = 13.405
            country_name = "Germany"
            country_code = "DE"
            login = "me@example.org"
            password = "secret"
            token_file = "/var/cache/hotword/token.json"
            connect_timeout_s = 2
            timeout_s = 9
            retries = 4
            spoken_items = 5

            [tts]
            backend = "command"
            [tts.espeak]
            voice = "en-gb+f3"
            rate = 150
            pitch = 40
            [tts.command]
            arguments = ["piper", "--output_file", "{wav}"]
            timeout_s = 30

            [events]
            on_wake = ["/usr/local/bin/woke", "--led"]
            """
        let (c, errors) = load(toml)
        #expect(errors.isEmpty, "\(errors)")
        #expect(c.audio.captureDevice == "plughw:CARD=Mic" && c.audio.playbackDevice == "plughw:CARD=Speaker")
        #expect(c.audio.captureRate == 48_000 && c.audio.playbackRate == 44_100)
        #expect(c.audio.periodMilliseconds == 20 && c.audio.bufferMilliseconds == 400)
        #expect(c.audio.gain == 2.5 && c.audio.volumePercent == 70)
        #expect(c.wake.models == ["hey_susi", "/opt/models/computer.hwks"])
        #expect(c.wake.sensitivity == 0.6 && c.wake.speakingSensitivity == 0.1)
        #expect(c.wake.bargeIn == false && c.wake.echoTailMilliseconds == 250)
        #expect(c.wake.keywords["hey susi"] == KeywordSettings(sensitivity: 0.7, smoothingSeconds: 0.2, triggerLevel: 3, refractorySeconds: 4,
                                                                   checkPhrase: false))
        #expect(c.detector == DetectorTuning(smoothingSeconds: 0.1, triggerLevel: 2, refractorySeconds: 1.5, checkPhrase: true))
        #expect(c.cue == CueSettings(enabled: false, file: "/usr/share/sounds/ding.wav"))
        #expect(c.recording.preRollSeconds == 0.4 && c.recording.trailingSilenceSeconds == 1.2)
        #expect(c.recording.maxLengthSeconds == 12 && c.recording.noSpeechTimeoutSeconds == 4.5)
        #expect(c.recording.minimumSpeechSeconds == 0.15)
        #expect(c.recording.vadMarginDecibels == 12 && c.recording.vadMinimumDecibels == -50)
        #expect(c.stt.backend == .command && c.stt.fallback == .none)
        #expect(c.stt.pocketsphinx == PocketSphinxConfiguration(acousticModel: "/m/hmm", languageModel: "/m/lm.bin",
                                                                 dictionary: "/m/words.dict", logFile: "/tmp/ps.log",
                                                                 questionModel: .file("/m/questions.arpa"), questionWeight: 0.3))
        #expect(c.stt.http == HTTPRecognizerConfiguration(url: URL(string: "http://10.0.0.2:9000/v1/audio/transcriptions")!,
                                                          model: "base.en", language: "de", apiKey: "sk-123", timeout: .milliseconds(12_500)))
        #expect(c.stt.commandArguments == ["whisper-cli", "-f", "{wav}"] && c.stt.commandTimeoutSeconds == 20)
        #expect(c.stt.whisper == WhisperConfiguration(model: "/m/whisper-tiny.en", audio: .utterance, threads: 3))
        #expect(c.susi.server == URL(string: "http://localhost:4000")! && c.susi.language == "de")
        #expect(c.susi.deviceType == "Kitchen Radio" && c.susi.timezoneOffset == -120)
        #expect(c.susi.latitude == 52.52 && c.susi.longitude == 13.405)
        #expect(c.susi.countryName == "Germany" && c.susi.countryCode == "DE")
        #expect(c.susi.timeouts == HTTPTimeouts(connect: .seconds(2), total: .seconds(9)))
        #expect(c.susi.retry.attempts == 5)
        #expect(c.spokenItems == 5)
        #expect(c.phrases.followUpSeconds == 0 && c.phrases.followUpWindowSeconds == 0, "0: a rating always needs the wake word")
        let account = try #require(c.susiClientConfiguration.account)
        #expect(account.login == "me@example.org" && account.password == "secret")
        #expect(account.tokenFile.path == "/var/cache/hotword/token.json")
        #expect(c.tts.backend == .command)
        #expect(c.tts.espeak == EspeakConfiguration(voice: "en-gb+f3", rate: 150, pitch: 40))
        #expect(c.tts.commandArguments == ["piper", "--output_file", "{wav}"] && c.tts.commandTimeoutSeconds == 30)
        #expect(c.events.onWake == ["/usr/local/bin/woke", "--led"])
        // Keyword settings combine: the keyword's own table over [detector] over [wake].
        #expect(c.keywordSettings(for: ["hey susi", "computer"]) == [
            "hey susi": KeywordSettings(sensitivity: 0.7, smoothingSeconds: 0.2, triggerLevel: 3, refractorySeconds: 4, checkPhrase: false),
            "computer": KeywordSettings(sensitivity: 0.6, smoothingSeconds: 0.1, triggerLevel: 2, refractorySeconds: 1.5, checkPhrase: true),
        ])
    }

    @Test func theExampleFileIsValidAndExplainsEveryKey() throws {
        let example = TestPaths.projectRoot.appendingPathComponent("hotword.example.toml")
        var configuration = Self.defaults
        #expect(ConfigurationLoader.apply(file: example.path, to: &configuration) == [])
        // It shows the defaults.
        #expect(configuration == Self.defaults)
        let text = try String(contentsOf: example, encoding: .utf8)
        for key in ConfigurationLoader.knownKeys {
            let name = key.split(separator: ".").last!
            #expect(text.contains("\n\(name) = ") || text.contains("\n# \(name) = "), "\(key) is not in the example")
        }
    }

    @Test func unknownKeysAreReportedWithTheirLineAndTheKeyMeant() {
        let toml = """
            [audio]
            capture_device = "hw:1"
            captur_rate = 48000

            [recording]
            trailing_silense_s = 1.0
            [recordng]
            x = 1
            [wake.keywords."hey susi"]
            sensitivty = 0.4
            [teleport]
            """
        let (configuration, errors) = load(toml)
        #expect(errors == [
            .unknownKey(file: "hotword.toml", line: 3, key: "audio.captur_rate", suggestion: "capture_rate"),
            .unknownKey(file: "hotword.toml", line: 6, key: "recording.trailing_silense_s", suggestion: "trailing_silence_s"),
            .unknownKey(file: "hotword.toml", line: 7, key: "recordng", suggestion: "recording"),
            .unknownKey(file: "hotword.toml", line: 10, key: "wake.keywords.\"hey susi\".sensitivty", suggestion: "sensitivity"),
            .unknownKey(file: "hotword.toml", line: 11, key: "teleport", suggestion: nil),
        ])
        #expect(errors[0].description == "hotword.toml:3: unknown key 'audio.captur_rate' (did you mean 'capture_rate'?)")
        // A file with problems changes nothing.
        #expect(configuration == Self.defaults)
    }

    @Test func badValuesAreReportedWithTheirLineAndWhatWasExpected() {
        let toml = """
            [audio]
            gain = "loud"
            volume = 150

            [wake]
            models = []
            sensitivity = 1.5
            barge_in = "yes"

            [stt]
            backend = "vosk"
            fallback = "whisper"

            [susi]
            server = "ftp://example.org"
            timezone_offset = 12.5
            follow_up_s = -1

            [recording]
            trailing_silence_s = -1
            [stt.pocketsphinx]
            question_model = ""
            question_weight = 1.5
            """
        let (_, errors) = load(toml)
        #expect(errors == [
            .invalidValue(file: "hotword.toml", line: 2, key: "audio.gain", value: "\"loud\"", expected: "a number from 0.01 to 100 (a factor)"),
            .invalidValue(file: "hotword.toml", line: 3, key: "audio.volume", value: "150", expected: "a whole number from 0 to 100 percent"),
            .invalidValue(file: "hotword.toml", line: 6, key: "wake.models", value: "[]", expected: "a non-empty list of strings, e.g. [\"a\", \"b\"]"),
            .invalidValue(file: "hotword.toml", line: 7, key: "wake.sensitivity", value: "1.5", expected: "a number from 0 to 1"),
            .invalidValue(file: "hotword.toml", line: 8, key: "wake.barge_in", value: "\"yes\"", expected: "true or false"),
            .invalidValue(file: "hotword.toml", line: 11, key: "stt.backend", value: "\"vosk\"",
                          expected: "one of \"auto\", \"pocketsphinx\", \"http\", \"command\", \"wyoming\", \"whisper\""),
            .invalidValue(file: "hotword.toml", line: 12, key: "stt.fallback", value: "\"whisper\"", expected: "one of \"pocketsphinx\", \"none\""),
            .invalidValue(file: "hotword.toml", line: 15, key: "susi.server", value: "\"ftp://example.org\"", expected: "an http:// or https:// URL"),
            .invalidValue(file: "hotword.toml", line: 16, key: "susi.timezone_offset", value: "12.5",
                          expected: "a whole number from -840 to 840 minutes (UTC+2 is -120)"),
            .invalidValue(file: "hotword.toml", line: 17, key: "susi.follow_up_s", value: "-1", expected: "a number from 0 to 60 seconds (0: off)"),
            .invalidValue(file: "hotword.toml", line: 20, key: "recording.trailing_silence_s", value: "-1",
                          expected: "a number from 0.1 to 10 seconds"),
            .invalidValue(file: "hotword.toml", line: 22, key: "stt.pocketsphinx.question_model", value: "\"\"",
                          expected: "\"built\" (from the question forms and SUSI's cached skills), \"none\", or a language model file"),
            .invalidValue(file: "hotword.toml", line: 23, key: "stt.pocketsphinx.question_weight", value: "1.5", expected: "a number from 0 to 1"),
        ])
        #expect(errors[1].description == "hotword.toml:3: audio.volume = 150 is invalid: expected a whole number from 0 to 100 percent")
    }

    @Test func keysThatOnlyWorkTogetherAreChecked() {
        let (_, errors) = load("""
            [audio]
            period_ms = 100
            buffer_ms = 150
            [stt]
            backend = "command"
            [susi]
            password = "secret"
            """)
        // A login alone is the account `hotword login` keeps the token of; a password alone is no account.
        #expect(errors == [
            .invalidValue(file: "hotword.toml", line: 3, key: "audio.buffer_ms", value: "150",
                          expected: "at least two periods (2 × period_ms = 200)"),
            .invalidValue(file: "hotword.toml", line: 5, key: "stt.backend", value: "[]",
                          expected: "the program and its arguments, one containing {wav} (needed by backend = \"command\")"),
            .invalidValue(file: "hotword.toml", line: 7, key: "susi.password", value: "<redacted>",
                          expected: "no password without a login (the account's e-mail address)"),
        ])
    }

    @Test func whisperNeedsAModelFolder() {
        let (_, errors) = load("[stt]\nbackend = \"whisper\"\n")
        #expect(errors == [
            .invalidValue(file: "hotword.toml", line: 2, key: "stt.backend", value: "\"\"",
                          expected: "a Whisper model folder (model.bin, vocabulary.txt, config.json; needed by backend = \"whisper\")"),
        ])
        let (configuration, none) = load("[stt]\nbackend = \"whisper\"\n[stt.whisper]\nmodel = \"/opt/tiny.en\"\n")
        #expect(none == [] && configuration.stt.selected == .whisper(WhisperConfiguration(model: "/opt/tiny.en", audio: .full)))
    }

    /// `backend = "auto"`, the default: Whisper when its model is configured or installed, else pocketsphinx.
    @Test func autoHearsWithWhisperWhenItIsInstalled() throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let installed = folder.appendingPathComponent("tiny.en"), empty = folder.appendingPathComponent("empty")
        for made in [installed, empty] { try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true) }
        try Data("model".utf8).write(to: installed.appendingPathComponent("model.bin"))

        var settings = SpeechToTextSettings()
        #expect(settings.backend == .auto)
        let found = settings.concrete(installedWhisper: [empty.path, installed.path])
        #expect(found.backend == .whisper && found.whisper.model == installed.path)
        let notFound = settings.concrete(installedWhisper: [empty.path, folder.appendingPathComponent("none").path])
        #expect(notFound.backend == .pocketsphinx && notFound.whisper.model.isEmpty)
        settings.whisper.model = "/m/tiny.en"
        #expect(settings.concrete(installedWhisper: [installed.path]).whisper.model == "/m/tiny.en")
        #expect(settings.concrete(installedWhisper: []).backend == .whisper)
        settings.backend = .wyoming
        #expect(settings.concrete(installedWhisper: [installed.path]) == settings)
    }

    @Test func theWyomingSectionSetsTheServerAndReportsBadValuesWithTheirLine() throws {
        let (configuration, errors) = load("""
            [wyoming]
            uri = "unix:///run/hotword-wyoming/wyoming.sock"
            models = ["computer", "/opt/models/kitchen.hwks"]
            idle_timeout_s = 30
            max_connections = 8
            zeroconf = false
            zeroconf_name = "kitchen"
            """)
        #expect(errors == [])
        let wyoming = configuration.wyoming
        #expect(wyoming.endpoint == .unix(path: "/run/hotword-wyoming/wyoming.sock"))
        #expect(wyoming.models == ["computer", "/opt/models/kitchen.hwks"])
        #expect(wyoming.limits.idleTimeout == .seconds(30) && wyoming.limits.maximumConnections == 8)
        #expect(!wyoming.zeroconf && wyoming.zeroconfName == "kitchen")
        #expect(Self.defaults.wyoming.endpoint == .tcp(host: "0.0.0.0", port: 10_400))

        let (_, bad) = load("[wyoming]\nuri = \"0.0.0.0:10400\"\nmax_connections = 0\nzeroconf_nam = \"x\"\n")
        #expect(bad == [
            .invalidValue(file: "hotword.toml", line: 2, key: "wyoming.uri", value: "\"0.0.0.0:10400\"",
                          expected: "tcp://HOST:PORT or unix:///PATH, e.g. \"tcp://0.0.0.0:10400\""),
            .invalidValue(file: "hotword.toml", line: 3, key: "wyoming.max_connections", value: "0",
                          expected: "a whole number from 1 to 10000 connections"),
            .unknownKey(file: "hotword.toml", line: 4, key: "wyoming.zeroconf_nam", suggestion: "zeroconf_name"),
        ])
    }

    @Test func configCheckFindsAWyomingModelThatIsNotThere() throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("hotword.toml").path
        try "[wyoming]\nmodels = [\"/nowhere/kitchen.hwks\"]\n".write(toFile: file, atomically: true, encoding: .utf8)
        let problems = ConfigurationLoader.check(file: file)
        #expect(problems.count == 1 && problems.first?.line == 2 && "\(problems)".contains("wyoming.models"), "\(problems)")
    }

    @Test func syntaxErrorsNameTheLine() {
        let (_, errors) = load("[audio]\ngain = 2\nvolume = = 3\n")
        guard case .syntax(let file, let line, _, _)? = errors.first, errors.count == 1 else {
            Issue.record("expected one syntax error, got \(errors)")
            return
        }
        #expect(file == "hotword.toml" && line == 3)
    }

    /// Found by fuzzing: the TOML library used before aborted the program on these.
    @Test(arguments: [("[!]", 1), ("[[#]]", 1), ("[audio]\ngain = 2\n[ =]\n", 3), ("[\u{01}teleport]", 1)])
    func malformedHeadersAreSyntaxErrors(toml: String, line: Int) {
        let (configuration, errors) = load(toml)
        #expect(errors.count == 1)
        guard case .syntax(let file, let errorLine, _, let message)? = errors.first else {
            Issue.record("expected a syntax error, got \(errors)")
            return
        }
        #expect(file == "hotword.toml" && errorLine == line)
        #expect(message.contains("expected a key"))
        #expect(configuration == Self.defaults)
    }

    @Test func keysAreLocatedInEveryTOMLForm() {
        // Dotted keys, inline tables, multi-line strings and arrays, quoted keys: the bad value
        // is still found on its own line.
        let toml = #"""
            audio.gain = 2
            [stt]
            command = { arguments = ["""
            a
            """], timeout_s = 0 }
            [wake]
            models = [
              "hey_susi",  # the default
              'other',
            ]
            'echo_tail_ms' = -5
            """#
        let (_, errors) = load(toml)
        #expect(errors == [
            .invalidValue(file: "hotword.toml", line: 5, key: "stt.command.timeout_s", value: "0", expected: "a number from 1 to 600 seconds"),
            .invalidValue(file: "hotword.toml", line: 11, key: "wake.echo_tail_ms", value: "-5", expected: "a whole number from 0 to 5000 milliseconds"),
        ])
    }

    @Test func theUserFileOverridesTheSystemFile() throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let system = folder.appendingPathComponent("system.toml")
        let user = folder.appendingPathComponent("user.toml")
        try Data("[audio]\ncapture_device = \"hw:0\"\ngain = 3\n[susi]\nlanguage = \"de\"\n".utf8).write(to: system)
        try Data("[audio]\ncapture_device = \"hw:1\"\n[recording]\nmax_length_s = 5\n".utf8).write(to: user)

        let configuration = try ConfigurationLoader.load([system.path, user.path], onto: Self.defaults)

        #expect(configuration.audio.captureDevice == "hw:1")  // both: the user's
        #expect(configuration.audio.gain == 3)  // system only
        #expect(configuration.susi.language == "de")
        #expect(configuration.recording.maxLengthSeconds == 5)  // user only
    }

    @Test func problemsOfSeveralFilesAreReportedTogether() throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let system = folder.appendingPathComponent("system.toml")
        try Data("[audio]\nvolum = 3\n".utf8).write(to: system)
        let missing = folder.appendingPathComponent("missing.toml")

        let error = #expect(throws: ConfigErrors.self) {
            try ConfigurationLoader.load([system.path, missing.path], onto: Self.defaults)
        }
        #expect(error?.errors.count == 2)
        #expect(error?.errors.first == .unknownKey(file: system.path, line: 2, key: "audio.volum", suggestion: "volume"))
        if case .unreadable(let file, _)? = error?.errors.last { #expect(file == missing.path) } else {
            Issue.record("expected the missing file to be reported, got \(String(describing: error))")
        }
    }

    @Test func theUserFileFollowsXDG() {
        #expect(ConfigurationFiles.user(environment: ["XDG_CONFIG_HOME": "/x/cfg", "HOME": "/home/u"]) == "/x/cfg/hotword/hotword.toml")
        #expect(ConfigurationFiles.user(environment: ["HOME": "/home/u"]) == "/home/u/.config/hotword/hotword.toml")
        #expect(ConfigurationFiles.system == "/etc/hotword/hotword.toml")
    }

    @Test func thePasswordIsNeverShown() {
        let (configuration, _) = load("[susi]\nlogin = \"me\"\npassword = \"hunter2\"\n")
        #expect(!"\(configuration)".contains("hunter2"))
        #expect(!String(reflecting: configuration).contains("hunter2"))
    }
}
