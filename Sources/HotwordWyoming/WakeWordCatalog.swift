import HotwordCore

/// One wake-word model offered to Wyoming clients: `name` is what `info` lists, what `detect`
/// asks for and what `detection` reports (the bundled name, or a model file's name without `.hwks`).
public struct WakeWordEntry: Sendable {
    public var name: String
    public var model: KeywordModel
    /// Detector settings per keyword of the model (sensitivity, refractory…), as `run` applies them.
    public var settings: [String: KeywordSettings]

    public init(name: String, model: KeywordModel, settings: [String: KeywordSettings] = [:]) {
        self.name = name
        self.model = model
        self.settings = settings
    }

    /// The spoken phrase: the model's keywords (usually one).
    public var phrase: String { model.keywords.joined(separator: ", ") }

    /// Whether a name from a `detect` event means this model: its own name or one of its
    /// keywords, ignoring case and whether words are joined by spaces or underscores.
    func answers(to requested: String) -> Bool {
        let wanted = Self.normalised(requested)
        return ([name] + model.keywords).contains { Self.normalised($0) == wanted }
    }

    private static func normalised(_ name: String) -> String {
        name.lowercased().replacingOccurrences(of: "_", with: " ").replacingOccurrences(of: "-", with: " ")
    }
}

/// Models loaded once at start and shared read-only by every connection (each builds its own
/// `Detector` from them), and what `info` says about them.
public struct WakeWordCatalog: Sendable {
    public let entries: [WakeWordEntry]
    public let gain: Float
    public let programVersion: String
    /// Per keyword, the second stage its detections must pass, if any (shared by every connection).
    public let checks: [String: any DetectionCheck]

    /// Checks now that the models work together (unique keywords, valid settings, a check only
    /// for their keywords), so that no connection can fail later for a reason that is the server's.
    public init(entries: [WakeWordEntry], gain: Float = 1, programVersion: String,
                checks: [String: any DetectionCheck] = [:]) throws(DetectorError) {
        try Self.detector(for: entries, gain: gain).requireKeywords(checks.keys)
        self.checks = checks
        self.entries = entries
        self.gain = gain
        self.programVersion = programVersion
    }

    /// A fresh detector over `entries` (a subset of this catalog's).
    func makeDetector(_ entries: [WakeWordEntry]) -> Detector {
        // Any subset of entries that made a detector in init makes one too.
        try! Self.detector(for: entries, gain: gain)
    }

    private static func detector(for entries: [WakeWordEntry], gain: Float) throws(DetectorError) -> Detector {
        let settings = entries.reduce(into: [String: KeywordSettings]()) { $0.merge($1.settings) { $1 } }
        return try Detector(models: entries.map(\.model), settings: settings, gain: gain)
    }

    /// The `info` event's data: one wake program, "hotword", with every model.
    var info: [String: JSONValue] {
        // The project has no public home page yet: its manual page (the .deb installs it, and its
        // units' Documentation= names it) rather than an empty or made-up URL.
        let attribution: JSONValue = ["name": "hotword", "url": "man:hotword(1)"]
        let models = entries.map { entry -> JSONValue in
            [
                "name": .string(entry.name),
                "description": .string(entry.phrase),
                "phrase": .string(entry.phrase),
                "attribution": attribution,
                "installed": true,
                "version": .string(programVersion),
                // Every bundled model is English; hotword records no language in a model file.
                "languages": ["en"],
            ]
        }
        let program: JSONValue = [
            "name": "hotword",
            "description": "hotword: offline wake-word detection with small streaming neural networks",
            "attribution": attribution,
            "installed": true,
            "version": .string(programVersion),
            "models": .array(models),
        ]
        var data: [String: JSONValue] = [:]
        for domain in ["asr", "tts", "handle", "intent", "mic", "snd"] { data[domain] = [] }
        data["wake"] = [program]
        return data
    }
}
