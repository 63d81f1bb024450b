/// A keyword heard in the stream.
public struct Detection: Sendable, Hashable {
    public var keyword: String
    /// Seconds from the start of the stream to the end of the audio frame that triggered it
    /// (so roughly when the keyword ended).
    public var time: Double
    /// The smoothed score that crossed the threshold, in [0, 1].
    public var score: Float

    public init(keyword: String, time: Double, score: Float) {
        self.keyword = keyword
        self.time = time
        self.score = score
    }
}

/// One network output for one keyword, for score traces (`hotword detect --scores`) and tuning.
public struct ScoreEvent: Sendable, Hashable {
    public var keyword: String
    public var time: Double
    /// The network's output for the keyword.
    public var raw: Float
    /// After smoothing: what the threshold is compared with.
    public var smoothed: Float
    /// For a model with a companion network, the first network's own output for the keyword, which
    /// `raw` fuses with the companion's: what the model's gate reads (`CompanionGate`).
    public var firstNetwork: Float? = nil
}

/// A user's choices for one keyword; nil keeps the model's default.
public struct KeywordSettings: Sendable, Hashable, Codable {
    /// In [0, 1]; higher means more detections (and more false alarms); 0.5 is the model's tuned point.
    public var sensitivity: Float?
    public var smoothingSeconds: Float?
    public var triggerLevel: Int?
    public var refractorySeconds: Float?
    /// Whether detections must pass the second stage (a phrase spotter) to count; nil keeps the
    /// model's default (`DetectionDefaults.phraseCheck`). The detector itself ignores it.
    public var checkPhrase: Bool?

    public init(sensitivity: Float? = nil, smoothingSeconds: Float? = nil, triggerLevel: Int? = nil, refractorySeconds: Float? = nil,
                checkPhrase: Bool? = nil) {
        self.sensitivity = sensitivity
        self.smoothingSeconds = smoothingSeconds
        self.triggerLevel = triggerLevel
        self.refractorySeconds = refractorySeconds
        self.checkPhrase = checkPhrase
    }
}

public enum DetectorError: Error, Sendable, Hashable, CustomStringConvertible {
    case noModels
    case invalidModel(index: Int, ModelError)
    case duplicateKeyword(String)
    case unknownKeyword(String, known: [String])
    case invalidSetting(keyword: String, name: String, value: String, expected: String)
    case invalidGain(Float)

    public var description: String {
        switch self {
        case .noModels: "no models given"
        case .invalidModel(let index, let error): "model \(index + 1): \(error)"
        case .duplicateKeyword(let name): "keyword '\(name)' is in more than one model"
        case .unknownKeyword(let name, let known): "no model has keyword '\(name)' (models have: \(known.joined(separator: ", ")))"
        case .invalidSetting(let keyword, let name, let value, let expected): "\(keyword): \(name) \(value) is invalid, expected \(expected)"
        case .invalidGain(let gain): "gain \(gain) is invalid, expected a finite number > 0"
        }
    }
}
