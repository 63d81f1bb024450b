import Foundation
import HotwordCore
import HotwordSUSI
import HotwordTOML
import HotwordWyoming

/// Every table and key `hotword.toml` may hold, what each accepts, and where it goes in
/// `AssistantConfiguration`. `hotword.example.toml` documents the same keys for users.
enum ConfigSchema {
    /// A known key: `apply` stores a valid value and returns nil, or returns what was expected.
    struct Key: Sendable {
        let name: String
        let apply: @Sendable (TOMLValue, inout AssistantConfiguration, _ table: [String]) -> String?
    }

    /// A table: its keys and the names of its subtables ("*": any name, as keyword tables).
    struct Section: Sendable {
        let keys: [Key]
        let subsections: [String]

        func subsection(named name: String) -> String? {
            subsections.contains(name) ? name : (subsections.contains("*") ? "*" : nil)
        }
    }

    /// Every key, dotted; a keyword table's keys appear under `wake.keywords."KEYWORD"`.
    static var keyPaths: [String] {
        sections.flatMap { name, section in
            section.keys.map { key in
                (name.isEmpty ? "" : name.replacingOccurrences(of: ".*", with: ".\"KEYWORD\"") + ".") + key.name
            }
        }.sorted()
    }

    static func section(at path: [String]) -> Section? {
        // Keyword tables have the keyword as their name: wake.keywords."hey susi".
        let pattern = path.count == 3 && path[0] == "wake" && path[1] == "keywords" ? "wake.keywords.*" : TOMLDocument.dotted(path)
        return sections[pattern]
    }

    private static let sections: [String: Section] = [
        "": Section(keys: [], subsections: ["audio", "wake", "detector", "cue", "recording", "stt", "susi", "tts", "events", "wyoming", "history"]),
        "audio": Section(keys: [
            key("capture_device", .string()) { $0.audio.captureDevice = $1 },
            key("playback_device", .string()) { $0.audio.playbackDevice = $1 },
            key("capture_rate", .integer(8_000...192_000, "Hz")) { $0.audio.captureRate = $1 },
            key("playback_rate", .integer(8_000...192_000, "Hz")) { $0.audio.playbackRate = $1 },
            key("period_ms", .integer(5...500, "milliseconds")) { $0.audio.periodMilliseconds = $1 },
            key("buffer_ms", .integer(10...5_000, "milliseconds")) { $0.audio.bufferMilliseconds = $1 },
            key("gain", .number(0.01...100, "(a factor)")) { $0.audio.gain = Float($1) },
            key("volume", .integer(0...100, "percent")) { $0.audio.volumePercent = $1 },
        ], subsections: []),
        "wake": Section(keys: [
            key("models", .list(allowEmpty: false)) { $0.wake.models = $1 },
            key("sensitivity", .number(0...1, "")) { $0.wake.sensitivity = Float($1) },
            key("speaking_sensitivity", .number(0...1, "")) { $0.wake.speakingSensitivity = Float($1) },
            key("barge_in", .boolean) { $0.wake.bargeIn = $1 },
            key("echo_tail_ms", .integer(0...5_000, "milliseconds")) { $0.wake.echoTailMilliseconds = $1 },
        ], subsections: ["keywords"]),
        "wake.keywords": Section(keys: [], subsections: ["*"]),
        "wake.keywords.*": Section(keys: [
            keywordKey("sensitivity", .number(0...1, "")) { $0.sensitivity = Float($1) },
            keywordKey("smoothing_s", .number(0...5, "seconds")) { $0.smoothingSeconds = Float($1) },
            keywordKey("trigger_level", .integer(1...100, "network outputs")) { $0.triggerLevel = $1 },
            keywordKey("refractory_s", .number(0...60, "seconds")) { $0.refractorySeconds = Float($1) },
            keywordKey("check_phrase", .boolean) { $0.checkPhrase = $1 },
        ], subsections: []),
        "detector": Section(keys: [
            key("smoothing_s", .number(0...5, "seconds")) { $0.detector.smoothingSeconds = Float($1) },
            key("trigger_level", .integer(1...100, "network outputs")) { $0.detector.triggerLevel = $1 },
            key("refractory_s", .number(0...60, "seconds")) { $0.detector.refractorySeconds = Float($1) },
            key("check_phrase", .boolean) { $0.detector.checkPhrase = $1 },
        ], subsections: []),
        "cue": Section(keys: [
            key("enabled", .boolean) { $0.cue.enabled = $1 },
            key("file", .path(allowEmpty: true)) { $0.cue.file = $1.isEmpty ? nil : $1 },
        ], subsections: []),
        "recording": Section(keys: [
            key("pre_roll_ms", .integer(0...3_000, "milliseconds")) { $0.recording.preRollSeconds = Double($1) / 1000 },
            key("trailing_silence_s", .number(0.1...10, "seconds")) { $0.recording.trailingSilenceSeconds = $1 },
            key("max_length_s", .number(1...60, "seconds")) { $0.recording.maxLengthSeconds = $1 },
            key("no_speech_timeout_s", .number(0.5...30, "seconds")) { $0.recording.noSpeechTimeoutSeconds = $1 },
            key("min_speech_ms", .integer(10...2_000, "milliseconds")) { $0.recording.minimumSpeechSeconds = Double($1) / 1000 },
            key("vad_margin_db", .number(1...60, "dB")) { $0.recording.vadMarginDecibels = Float($1) },
            key("vad_min_level_db", .number(-100...0, "dBFS")) { $0.recording.vadMinimumDecibels = Float($1) },
            key("keep_dir", .path(allowEmpty: true)) { $0.keepDirectory = $1.isEmpty ? nil : $1 },
        ], subsections: []),
        "stt": Section(keys: [
            key("backend", .choice(SpeechToTextSettings.Backend.self)) { $0.stt.backend = $1 },
            key("fallback", .choice(SpeechToTextSettings.Fallback.self)) { $0.stt.fallback = $1 },
        ], subsections: ["pocketsphinx", "http", "command", "wyoming", "whisper"]),
        "stt.pocketsphinx": Section(keys: [
            key("acoustic_model", .path()) { $0.stt.pocketsphinx.acousticModel = $1 },
            key("language_model", .path()) { $0.stt.pocketsphinx.languageModel = $1 },
            key("dictionary", .path()) { $0.stt.pocketsphinx.dictionary = $1 },
            key("log_file", .path(allowEmpty: true)) { $0.stt.pocketsphinx.logFile = $1.isEmpty ? nil : $1 },
            key("question_model", .questionModel) { $0.stt.pocketsphinx.questionModel = $1 },
            key("question_weight", .number(0...1, "")) { $0.stt.pocketsphinx.questionWeight = $1 },
        ], subsections: []),
        "stt.http": Section(keys: [
            key("url", .url) { $0.stt.http.url = $1 },
            key("model", .string()) { $0.stt.http.model = $1 },
            key("language", .string(allowEmpty: true)) { $0.stt.http.language = $1.isEmpty ? nil : $1 },
            key("api_key", .string(allowEmpty: true)) { $0.stt.http.apiKey = $1.isEmpty ? nil : $1 },
            key("timeout_s", .number(1...600, "seconds")) { $0.stt.http.timeout = .milliseconds(Int($1 * 1000)) },
        ], subsections: []),
        "stt.command": Section(keys: [
            key("arguments", .list(allowEmpty: true)) { $0.stt.commandArguments = $1 },
            key("timeout_s", .number(1...600, "seconds")) { $0.stt.commandTimeoutSeconds = $1 },
        ], subsections: []),
        "stt.wyoming": wyomingService(\.stt.wyoming, name: "model"),
        "stt.whisper": Section(keys: [
            key("model", .path(allowEmpty: true)) { $0.stt.whisper.model = $1 },
            key("audio", .choice(WhisperConfiguration.Audio.self)) { $0.stt.whisper.audio = $1 },
            key("threads", .integer(1...16, "threads")) { $0.stt.whisper.threads = $1 },
        ], subsections: []),
        "susi": Section(keys: [
            key("server", .url) { $0.susi.server = $1 },
            key("language", .string()) { $0.susi.language = $1 },
            key("device_type", .string()) { $0.susi.deviceType = $1 },
            key("timezone_offset", .integer(-840...840, "minutes (UTC+2 is -120)")) { $0.susi.timezoneOffset = $1 },
            key("latitude", .number(-90...90, "degrees")) { $0.susi.latitude = $1 },
            key("longitude", .number(-180...180, "degrees")) { $0.susi.longitude = $1 },
            key("country_name", .string()) { $0.susi.countryName = $1 },
            key("country_code", .string()) { $0.susi.countryCode = $1 },
            key("login", .string(allowEmpty: true)) { $0.susiLogin.login = $1 },
            key("password", .string(allowEmpty: true)) { $0.susiLogin.password = $1 },
            key("token_file", .path()) { $0.susiLogin.tokenFile = URL(fileURLWithPath: $1) },
            key("connect_timeout_s", .number(0.5...60, "seconds")) { $0.susi.timeouts.connect = .milliseconds(Int($1 * 1000)) },
            key("timeout_s", .number(1...300, "seconds")) { $0.susi.timeouts.total = .milliseconds(Int($1 * 1000)) },
            key("retries", .integer(0...10, "retries after the first attempt")) {
                $0.susi.retry = HTTPRetryPolicy(attempts: $1 + 1, baseDelay: $0.susi.retry.baseDelay)
            },
            key("spoken_items", .integer(1...50, "rows or titles")) { $0.spokenItems = $1 },
            key("sync_settings", .boolean) { $0.syncSettings = $1 },
            key("help_phrases", .list(allowEmpty: true)) { $0.phrases.help = $1 },
            key("positive_phrases", .list(allowEmpty: true)) { $0.phrases.positive = $1 },
            key("negative_phrases", .list(allowEmpty: true)) { $0.phrases.negative = $1 },
            key("feedback_window_s", .number(1...300, "seconds")) { $0.phrases.feedbackWindowSeconds = $1 },
            key("follow_up_s", .number(0...60, "seconds (0: off)")) { $0.phrases.followUpSeconds = $1 },
        ], subsections: []),
        "tts": Section(keys: [
            key("backend", .choice(TextToSpeechSettings.Backend.self)) { $0.tts.backend = $1 },
            key("speak_always", .boolean) { $0.tts.speakAlways = $1 },
        ], subsections: ["espeak", "command", "wyoming"]),
        "tts.espeak": Section(keys: [
            key("voice", .string()) { $0.tts.espeak.voice = $1 },
            key("rate", .integer(EspeakConfiguration.rates, "words per minute")) { $0.tts.espeak.rate = $1 },
            key("pitch", .integer(EspeakConfiguration.pitches, "")) { $0.tts.espeak.pitch = $1 },
        ], subsections: []),
        "tts.command": Section(keys: [
            key("arguments", .list(allowEmpty: true)) { $0.tts.commandArguments = $1 },
            key("timeout_s", .number(1...600, "seconds")) { $0.tts.commandTimeoutSeconds = $1 },
        ], subsections: []),
        "tts.wyoming": wyomingService(\.tts.wyoming, name: "voice"),
        "events": Section(keys: [
            key("on_wake", .list(allowEmpty: true)) { $0.events.onWake = $1 },
        ], subsections: []),
        "wyoming": Section(keys: [
            key("uri", .wyomingEndpoint) { $0.wyoming.endpoint = $1 },
            key("models", .list(allowEmpty: false)) { $0.wyoming.models = $1 },
            key("idle_timeout_s", .number(1...86_400, "seconds")) { $0.wyoming.idleTimeoutSeconds = $1 },
            key("max_connections", .integer(1...10_000, "connections")) { $0.wyoming.maximumConnections = $1 },
            key("zeroconf", .boolean) { $0.wyoming.zeroconf = $1 },
            key("zeroconf_name", .string()) { $0.wyoming.zeroconfName = $1 },
        ], subsections: []),
        "history": Section(keys: [
            key("enabled", .boolean) { $0.history.enabled = $1 },
            key("file", .path()) { $0.history.file = URL(fileURLWithPath: $1) },
            key("keep_days", .integer(0...36_500, "days (0: no limit)")) { $0.history.limits.keepDays = $1 },
            key("max_rows", .integer(0...10_000_000, "exchanges (0: no limit)")) { $0.history.limits.maxRows = $1 },
            key("late_limit_min", .integer(0...10_080, "minutes")) { $0.history.lateLimitMinutes = $1 },
        ], subsections: []),
    ]

    // MARK: Value kinds

    /// What a key accepts: `parse` gives the value, or nil when it is not acceptable.
    struct Kind<Value>: Sendable {
        let expected: String
        let parse: @Sendable (TOMLValue) -> Value?

        static func string(allowEmpty: Bool = false) -> Kind<String> {
            Kind<String>(expected: allowEmpty ? "a string (in quotes)" : "a non-empty string (in quotes)") { value in
                value.string.flatMap { allowEmpty || !$0.isEmpty ? $0 : nil }
            }
        }

        /// A file name; a leading `~` means the home folder.
        static func path(allowEmpty: Bool = false) -> Kind<String> {
            let text = string(allowEmpty: allowEmpty)
            return Kind<String>(expected: text.expected) { value in
                text.parse(value).map { NSString(string: $0).expandingTildeInPath }
            }
        }

        /// `[stt.pocketsphinx] question_model`: "built", "none" or a language model file.
        static var questionModel: Kind<PocketSphinxConfiguration.QuestionModel> {
            let text = string()
            return Kind<PocketSphinxConfiguration.QuestionModel>(
                expected: "\"built\" (from the question forms and SUSI's cached skills), \"none\", or a language model file"
            ) { value in
                text.parse(value).map(PocketSphinxConfiguration.QuestionModel.init(setting:))
            }
        }

        static func number(_ range: ClosedRange<Double>, _ unit: String) -> Kind<Double> {
            Kind<Double>(expected: "a number from \(format(range.lowerBound)) to \(format(range.upperBound))" + (unit.isEmpty ? "" : " \(unit)")) { value in
                (value.double ?? value.int.map(Double.init)).flatMap { $0.isFinite && range.contains($0) ? $0 : nil }
            }
        }

        static func integer(_ range: ClosedRange<Int>, _ unit: String) -> Kind<Int> {
            Kind<Int>(expected: "a whole number from \(range.lowerBound) to \(range.upperBound)" + (unit.isEmpty ? "" : " \(unit)")) { value in
                value.int.flatMap { range.contains($0) ? $0 : nil }
            }
        }

        static var boolean: Kind<Bool> {
            Kind<Bool>(expected: "true or false") { $0.bool }
        }

        static func list(allowEmpty: Bool) -> Kind<[String]> {
            Kind<[String]>(expected: (allowEmpty ? "a list of strings" : "a non-empty list of strings") + ", e.g. [\"a\", \"b\"]") { value in
                guard let array = value.array else { return nil }
                let strings = array.compactMap { $0.string }
                guard strings.count == array.count, allowEmpty || !strings.isEmpty, !strings.contains(where: \.isEmpty) else { return nil }
                return strings
            }
        }

        static func choice<Choice: RawRepresentable & CaseIterable & Sendable>(_: Choice.Type) -> Kind<Choice>
            where Choice.RawValue == String {
            Kind<Choice>(expected: "one of " + Choice.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")) { value in
                value.string.flatMap { Choice(rawValue: $0) }
            }
        }

        static var wyomingEndpoint: Kind<WyomingEndpoint> {
            Kind<WyomingEndpoint>(expected: "tcp://HOST:PORT or unix:///PATH, e.g. \"tcp://0.0.0.0:\(WyomingEndpoint.defaultPort)\"") { value in
                value.string.flatMap { try? WyomingEndpoint(parsing: $0) }
            }
        }

        static var url: Kind<URL> {
            Kind<URL>(expected: "an http:// or https:// URL") { value in
                guard let text = value.string, let url = URL(string: text),
                      ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else { return nil }
                return url
            }
        }
    }

    private static func key<Value>(_ name: String, _ kind: Kind<Value>,
                                   _ set: @escaping @Sendable (inout AssistantConfiguration, Value) -> Void) -> Key {
        Key(name: name) { value, configuration, _ in
            guard let parsed = kind.parse(value) else { return kind.expected }
            set(&configuration, parsed)
            return nil
        }
    }

    /// `[stt.wyoming]` and `[tts.wyoming]`: the server, the model or voice (`name`), language and timeout.
    private static func wyomingService(_ path: WritableKeyPath<AssistantConfiguration, WyomingServiceConfiguration> & Sendable,
                                       name: String) -> Section {
        Section(keys: [
            key("uri", .wyomingEndpoint) { $0[keyPath: path].endpoint = $1 },
            key(name, .string(allowEmpty: true)) { $0[keyPath: path].name = $1.isEmpty ? nil : $1 },
            key("language", .string(allowEmpty: true)) { $0[keyPath: path].language = $1.isEmpty ? nil : $1 },
            key("timeout_s", .number(1...600, "seconds")) { $0[keyPath: path].timeout = .milliseconds(Int($1 * 1000)) },
        ], subsections: [])
    }

    /// A key of a keyword table (`[wake.keywords."hey susi"]`, or `[wake.keywords.hey_susi]`): the
    /// table's name is the keyword, kept in `KeywordName`'s normal spelling.
    private static func keywordKey<Value>(_ name: String, _ kind: Kind<Value>,
                                          _ set: @escaping @Sendable (inout KeywordSettings, Value) -> Void) -> Key {
        Key(name: name) { value, configuration, table in
            guard let parsed = kind.parse(value) else { return kind.expected }
            set(&configuration.wake.keywords[KeywordName.normalized(table[2]), default: KeywordSettings()], parsed)
            return nil
        }
    }

    // MARK: Names and values in messages

    /// A list of strings as it would be written in TOML.
    static func render(_ strings: [String]) -> String {
        TOMLValue.array(strings.map(TOMLValue.string)).tomlText
    }

    /// The known name a misspelt one most likely meant: within a third of its length in edits
    /// (at least 2).
    static func closest(to name: String, in known: [String]) -> String? {
        let limit = max(2, name.count / 3)
        return known.map { ($0, editDistance(name.lowercased(), $0)) }
            .filter { $0.1 <= limit }
            .min { $0.1 < $1.1 }?.0
    }

    private static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var previous = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var current = [i] + [Int](repeating: 0, count: b.count)
            for j in 1...max(b.count, 1) where !b.isEmpty {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return a.isEmpty ? b.count : previous[b.count]
    }

    private static func format(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}
