import Foundation

/// A trained keyword spotter: which words it hears, the features it was trained on, its
/// network, how its scores become detections, and how it was made.
///
/// The network maps one feature frame at a time to either one sigmoid score per keyword
/// (last activation `sigmoid`, outputs == keywords) or a softmax over
/// [background, keyword 1, …] (last activation `softmax`, outputs == keywords + 1).
public struct KeywordModel: Sendable, Hashable {
    public var keywords: [String]
    public var frontend: FrontendConfig
    public var layers: [Layer]
    /// A second network for the same keywords on another front end, or nil.
    public var companion: CompanionNetwork?
    public var detection: DetectionDefaults
    public var training: TrainingRecord

    public init(
        keywords: [String], frontend: FrontendConfig, layers: [Layer], companion: CompanionNetwork? = nil,
        detection: DetectionDefaults = DetectionDefaults(), training: TrainingRecord = TrainingRecord()
    ) {
        self.keywords = keywords
        self.frontend = frontend
        self.layers = layers
        self.companion = companion
        self.detection = detection
        self.training = training
    }

    /// The companion network as a model of its own (the same keywords and detection settings), to
    /// run and validate it: its scores alone are not the model's.
    public var companionModel: KeywordModel? {
        companion.map { KeywordModel(keywords: keywords, frontend: $0.frontend, layers: $0.layers, detection: detection) }
    }

    /// The model without its companion network: the first front end's network alone.
    public var withoutCompanion: KeywordModel {
        var model = self
        model.companion = nil
        return model
    }

    /// The model with its companion heard at every output: no gate.
    public var ungated: KeywordModel {
        var model = self
        model.companion?.gate = nil
        return model
    }

    public var parameterCount: Int {
        layers.reduce(0) { $0 + $1.parameterCount } + (companionModel?.parameterCount ?? 0)
    }

    /// Feature frames per network output (the product of the layers' strides).
    public var totalStride: Int { layers.reduce(1) { $0 * $1.stride } }

    /// Feature frames one output depends on, for the convolutional part (a GRU remembers longer).
    public var receptiveField: Int {
        var field = 1, spacing = 1
        for layer in layers {
            if case .conv1D(let conv) = layer { field += (conv.receptiveField - 1) * spacing }
            spacing *= layer.stride
        }
        return field
    }

    /// Samples between network outputs; for a model with a companion, between outputs of both
    /// (the least common multiple of the two periods).
    public var outputShift: Int {
        let own = frontend.outputFrameShift * totalStride
        guard let companionModel else { return own }
        return Self.leastCommonMultiple(own, companionModel.outputShift)
    }

    public static func leastCommonMultiple(_ a: Int, _ b: Int) -> Int {
        var (x, y) = (a, b)
        while y != 0 { (x, y) = (y, x % y) }
        return a / x * b
    }

    /// The audio a model must hear before its outputs depend on nothing but audio: its receptive
    /// field (and its companion's), in samples of the model's sample rate.
    public var warmUpSamples: Int {
        if let companionModel { return max(withoutCompanion.warmUpSamples, companionModel.warmUpSamples) }
        let frames = receptiveField + totalStride - 1
        return (frames - 1) * frontend.outputFrameShift + frontend.outputFrameLength
    }

    /// Multiply-adds per second of audio, counting each layer at its own frame rate, and the
    /// frontend's speech embedding as a stream computes it, if it has one (shared by every model
    /// on the same one).
    public var multiplyAddsPerSecond: Double {
        withoutCompanion.networkMultiplyAddsPerSecond + (companionModel?.networkMultiplyAddsPerSecond ?? 0)
    }

    private var networkMultiplyAddsPerSecond: Double {
        var framesPerSecond = Double(frontend.sampleRate) / Double(frontend.outputFrameShift)
        var total = Double(frontend.embedding?.multiplyAddsPerHop ?? 0) * framesPerSecond
        for layer in layers {
            framesPerSecond /= Double(layer.stride)
            total += framesPerSecond * Double(layer.multiplyAddsPerOutput)
        }
        return total
    }

    /// How the last layer's outputs map to keyword scores.
    public enum OutputKind: Sendable { case sigmoid, softmaxWithBackground }

    public var outputKind: OutputKind? {
        switch layers.last?.activation {
        case .sigmoid: .sigmoid
        case .softmax: .softmaxWithBackground
        default: nil
        }
    }
}

/// A second network hearing the same keywords through another front end — the pretrained speech
/// embedding beside log-mel features, say. The model's score is the sigmoid of the weighted mean
/// of the two networks' logits: front ends err on different audio, so the mean wakes less often
/// than either at the same misses (docs/training.md, "Two front ends"). Each network runs on its
/// own front end's frames; the companion's latest score meets each of the first network's.
public struct CompanionNetwork: Sendable, Hashable {
    public var frontend: FrontendConfig
    /// Ends in a sigmoid, one output per keyword.
    public var layers: [Layer]
    /// The companion's share of the mean logit, in (0, 1); the first network's is 1 − weight.
    public var weight: Float
    /// When the companion is heard (nil: always): a cascade on the first network's score.
    public var gate: CompanionGate?

    public init(frontend: FrontendConfig, layers: [Layer], weight: Float = 0.5, gate: CompanionGate? = nil) {
        self.frontend = frontend
        self.layers = layers
        self.weight = weight
        self.gate = gate
    }
}

/// How a model's scores become detections by default; a user may override each per keyword.
public struct DetectionDefaults: Sendable, Hashable, Codable {
    /// The sensitivity used when the user sets none (0.5 = the tuned operating point).
    public var sensitivity: Float
    public var sensitivityMap: SensitivityMap
    /// Scores are averaged over this many seconds before the threshold (0 = no smoothing).
    public var smoothingSeconds: Float
    /// Consecutive network outputs whose smoothed score must exceed the threshold.
    public var triggerLevel: Int
    /// After a detection the keyword cannot fire again for this long.
    public var refractorySeconds: Float
    /// A second stage the model asks for by default (nil: none): each detection stands only if
    /// a phrase spotter hears the keyword in the audio around it (`DetectionCheck`).
    public var phraseCheck: PhraseCheckDefaults?

    /// The longest smoothing and refractory periods a detector accepts, from a model file or a user.
    public static let maximumSmoothingSeconds = 5
    public static let maximumRefractorySeconds = 60

    public init(
        sensitivity: Float = 0.5, sensitivityMap: SensitivityMap = SensitivityMap(),
        smoothingSeconds: Float = 0.05, triggerLevel: Int = 1, refractorySeconds: Float = 1.0,
        phraseCheck: PhraseCheckDefaults? = nil
    ) {
        self.sensitivity = sensitivity
        self.sensitivityMap = sensitivityMap
        self.smoothingSeconds = smoothingSeconds
        self.triggerLevel = triggerLevel
        self.refractorySeconds = refractorySeconds
        self.phraseCheck = phraseCheck
    }
}

/// The second stage a model is meant to run with: pocketsphinx spotting the keyword's phrase in
/// the audio around each detection. `hotword tune --check-phrase` sets it for models trained from
/// synthetic voices alone, whose first stage wakes too easily on voices and noise it never heard
/// (docs/training.md, "Second stage"). Files written before it existed have none.
public struct PhraseCheckDefaults: Sendable, Hashable, Codable {
    /// pocketsphinx's keyword threshold per phone of the phrase: lower spots more.
    public var thresholdPerPhone: Double

    public init(thresholdPerPhone: Double) {
        self.thresholdPerPhone = thresholdPerPhone
    }
}

/// Sensitivity in [0, 1] → score threshold, interpolated between tuned points in log-odds.
/// Higher sensitivity means a lower threshold (more detections); the point at 0.5 is the
/// threshold `hotword tune` chose. Scores are sigmoids and the tuned thresholds sit near 1, where
/// equal steps in probability are very unequal steps in the logit the network computes: linear
/// in probability, 0.5 → 0.55 moved computer's logit 1.9 and the next 0.05 only 0.6
/// (docs/training.md, "A sensitivity map in log-odds").
public struct SensitivityMap: Sendable, Hashable, Codable {
    public struct Point: Sendable, Hashable, Codable {
        public var sensitivity: Float
        public var threshold: Float
        public init(sensitivity: Float, threshold: Float) {
            self.sensitivity = sensitivity
            self.threshold = threshold
        }
    }

    /// Sorted by sensitivity, from 0 to 1; thresholds never increase.
    public var points: [Point]

    public init(points: [Point] = [
        Point(sensitivity: 0, threshold: 0.99),
        Point(sensitivity: 0.5, threshold: 0.8),
        Point(sensitivity: 1, threshold: 0.3),
    ]) {
        self.points = points
    }

    public func threshold(forSensitivity sensitivity: Float) -> Float {
        let s = min(max(sensitivity, 0), 1)
        guard let first = points.first else { return 0.5 }
        if s <= first.sensitivity { return first.threshold }
        for (a, b) in zip(points, points.dropFirst()) where s <= b.sensitivity {
            if s == b.sensitivity { return b.threshold }
            let t = Double((s - a.sensitivity) / (b.sensitivity - a.sensitivity))
            let (from, to) = (LogOdds.logit(Double(a.threshold)), LogOdds.logit(Double(b.threshold)))
            return Float(LogOdds.sigmoid(from + t * (to - from)))
        }
        return points[points.count - 1].threshold
    }

    /// The sensitivity that maps to `threshold` (the inverse of `threshold(forSensitivity:)`),
    /// clamped to [0, 1].
    public func sensitivity(forThreshold threshold: Float) -> Float {
        guard let first = points.first, let last = points.last else { return 0.5 }
        if threshold >= first.threshold { return first.sensitivity }
        if threshold <= last.threshold { return last.sensitivity }
        for (a, b) in zip(points, points.dropFirst()) where threshold <= a.threshold && threshold >= b.threshold {
            guard a.threshold != b.threshold else { return a.sensitivity }
            let (from, at, to) = (LogOdds.logit(Double(a.threshold)), LogOdds.logit(Double(threshold)), LogOdds.logit(Double(b.threshold)))
            let t = (from - at) / (from - to)
            return a.sensitivity + Float(t) * (b.sensitivity - a.sensitivity)
        }
        return last.sensitivity
    }
}

/// How a model was made, so that it can be made again: stored in the file, shown in its card.
public struct TrainingRecord: Sendable, Hashable, Codable {
    /// The exact command line.
    public var command: String
    /// Data folders and how they were split.
    public var data: [String]
    public var seed: UInt64?
    /// ISO 8601 date of training.
    public var date: String?
    /// Measured figures, e.g. "miss_rate_at_1fa_per_hour": 0.03.
    public var figures: [String: Double]

    public init(command: String = "", data: [String] = [], seed: UInt64? = nil, date: String? = nil, figures: [String: Double] = [:]) {
        self.command = command
        self.data = data
        self.seed = seed
        self.date = date
        self.figures = figures
    }
}
