/// Hears several keyword models at once in a stream of 16 kHz mono audio.
///
/// Models that share frontend settings share one `FeatureExtractor`. Feed chunks of any size:
/// scores and detections are identical to feeding the whole signal at once. Allocates nothing
/// per chunk. One instance per stream, used from one thread at a time.
public final class Detector {
    /// Multiplies every input sample before feature extraction (global microphone gain).
    public var gain: Float {
        didSet { precondition(gain.isFinite && gain > 0, "gain must be finite and > 0") }
    }
    /// Called for every network output of every keyword (time order within a model).
    public var onScore: ((ScoreEvent) -> Void)?
    /// Samples processed since the start (or the last reset).
    public private(set) var samplesProcessed = 0

    public let keywords: [String]
    private let groups: [FrontendGroup]
    private let scaled: UnsafeMutablePointer<Float>
    private static let blockLength = 2048
    private var found: [Detection] = []

    /// - Parameters:
    ///   - models: each validated here; keywords must be unique across models.
    ///   - settings: per keyword name; missing keywords use the model's defaults.
    public init(models: [KeywordModel], settings: [String: KeywordSettings] = [:], gain: Float = 1) throws(DetectorError) {
        guard !models.isEmpty else { throw .noModels }
        guard gain.isFinite, gain > 0 else { throw .invalidGain(gain) }
        for (index, model) in models.enumerated() {
            do { try model.validate() } catch { throw .invalidModel(index: index, error) }
        }
        let allKeywords = models.flatMap(\.keywords)
        if let duplicate = allKeywords.first(where: { name in allKeywords.filter { $0 == name }.count > 1 }) {
            throw .duplicateKeyword(duplicate)
        }
        if let unknown = settings.keys.sorted().first(where: { !allKeywords.contains($0) }) {
            throw .unknownKeyword(unknown, known: allKeywords)
        }
        var byFrontend: [FrontendConfig: [KeywordModel]] = [:]
        var frontendOrder: [FrontendConfig] = []
        for model in models {
            if byFrontend[model.frontend] == nil { frontendOrder.append(model.frontend) }
            byFrontend[model.frontend, default: []].append(model)
        }
        groups = try frontendOrder.map { config throws(DetectorError) in
            try FrontendGroup(config: config, models: byFrontend[config]!, settings: settings)
        }
        keywords = allKeywords
        self.gain = gain
        scaled = .allocate(capacity: Self.blockLength)
    }

    deinit { scaled.deallocate() }

    /// The score threshold a keyword's sensitivity currently maps to.
    public func threshold(for keyword: String) -> Float? {
        for group in groups {
            for runner in group.runners {
                if let trigger = runner.triggers.first(where: { $0.keyword == keyword }) { return trigger.threshold }
            }
        }
        return nil
    }

    /// Changes a keyword's sensitivity (0…1) while running.
    public func setSensitivity(_ sensitivity: Float, for keyword: String) throws(DetectorError) {
        guard (0...1).contains(sensitivity) else {
            throw .invalidSetting(keyword: keyword, name: "sensitivity", value: "\(sensitivity)", expected: "a number in [0, 1]")
        }
        guard groups.contains(where: { $0.setSensitivity(sensitivity, for: keyword) }) else {
            throw .unknownKeyword(keyword, known: keywords)
        }
    }

    /// The keywords detected in the next chunk of the stream, in time order (mostly none).
    public func process(_ samples: [Float]) -> [Detection] {
        samples.withUnsafeBufferPointer { process($0) }
    }

    /// The keywords detected in the next chunk of the stream, in time order (mostly none).
    public func process(_ samples: UnsafeBufferPointer<Float>) -> [Detection] {
        found.removeAll(keepingCapacity: true)
        // Locals, so the per-sample loop does no exclusivity checks on class properties.
        let gain = self.gain, scaled = self.scaled
        var start = 0
        while start < samples.count {
            let count = min(Self.blockLength, samples.count - start)
            for i in 0..<count { scaled[i] = samples[start + i] * gain }
            let block = UnsafeBufferPointer(start: scaled, count: count)
            for group in groups {
                group.process(block, onScore: onScore) { found.append($0) }
            }
            start += count
        }
        samplesProcessed += samples.count
        guard !found.isEmpty else { return [] }
        if groups.count > 1 { found.sort { $0.time < $1.time } }
        return found
    }

    /// Forgets all audio, as if the stream started again.
    public func reset() {
        for group in groups { group.reset() }
        samplesProcessed = 0
    }
}

/// Models sharing one frontend configuration, and that frontend.
private final class FrontendGroup {
    let config: FrontendConfig
    let extractor: FeatureExtractor
    var runners: [ModelRunner]
    var framesEmitted = 0

    init(config: FrontendConfig, models: [KeywordModel], settings: [String: KeywordSettings]) throws(DetectorError) {
        self.config = config
        // Models were validated, which validates their frontend config.
        extractor = try! FeatureExtractor(config: config)
        runners = try models.map { model throws(DetectorError) in try ModelRunner(model: model, settings: settings) }
    }

    func process(_ samples: UnsafeBufferPointer<Float>, onScore: ((ScoreEvent) -> Void)?, onDetection: (Detection) -> Void) {
        extractor.process(samples) { frame in
            // Frame t covers samples [t·shift, t·shift + length): it is heard at its end.
            let time = Double(framesEmitted * config.outputFrameShift + config.outputFrameLength) / Double(config.sampleRate)
            framesEmitted += 1
            for index in runners.indices {
                runners[index].push(frame.baseAddress!, time: time, onScore: onScore, onDetection: onDetection)
            }
        }
    }

    func setSensitivity(_ sensitivity: Float, for keyword: String) -> Bool {
        runners.indices.contains { runners[$0].setSensitivity(sensitivity, for: keyword) }
    }

    func reset() {
        extractor.reset()
        framesEmitted = 0
        for index in runners.indices { runners[index].reset() }
    }
}

/// One model's network and a trigger per keyword.
private struct ModelRunner {
    let model: KeywordModel
    let network: StreamingNetwork
    var triggers: [KeywordTrigger]

    init(model: KeywordModel, settings: [String: KeywordSettings]) throws(DetectorError) {
        self.model = model
        network = StreamingNetwork(model: model)
        let outputsPerSecond = Double(model.frontend.sampleRate) / Double(model.frontend.outputFrameShift * model.totalStride)
        let warmup = (model.receptiveField + model.totalStride - 1) / model.totalStride
        triggers = try model.keywords.map { keyword throws(DetectorError) in
            let chosen = settings[keyword] ?? KeywordSettings()
            let defaults = model.detection
            let sensitivity = chosen.sensitivity ?? defaults.sensitivity
            let smoothing = chosen.smoothingSeconds ?? defaults.smoothingSeconds
            let triggerLevel = chosen.triggerLevel ?? defaults.triggerLevel
            let refractory = chosen.refractorySeconds ?? defaults.refractorySeconds
            func invalid(_ name: String, _ value: Any, _ expected: String) -> DetectorError {
                .invalidSetting(keyword: keyword, name: name, value: "\(value)", expected: expected)
            }
            guard (0...1).contains(sensitivity) else { throw invalid("sensitivity", sensitivity, "a number in [0, 1]") }
            let maximumSmoothing = DetectionDefaults.maximumSmoothingSeconds, maximumRefractory = DetectionDefaults.maximumRefractorySeconds
            guard (0...Float(maximumSmoothing)).contains(smoothing) else {
                throw invalid("smoothing", smoothing, "0 to \(maximumSmoothing) seconds")
            }
            guard triggerLevel >= 1 else { throw invalid("trigger level", triggerLevel, "an integer ≥ 1") }
            guard (0...Float(maximumRefractory)).contains(refractory) else {
                throw invalid("refractory period", refractory, "0 to \(maximumRefractory) seconds")
            }
            return KeywordTrigger(
                keyword: keyword, threshold: defaults.sensitivityMap.threshold(forSensitivity: sensitivity),
                smoothingOutputs: Int((Double(smoothing) * outputsPerSecond).rounded()), triggerLevel: triggerLevel,
                refractorySeconds: Double(refractory), warmupOutputs: warmup)
        }
    }

    mutating func push(_ frame: UnsafePointer<Float>, time: Double, onScore: ((ScoreEvent) -> Void)?,
                       onDetection: (Detection) -> Void) {
        guard let output = network.push(frame) else { return }
        let background = model.outputKind == .softmaxWithBackground ? 1 : 0
        for k in triggers.indices {
            let raw = output[k + background]
            let (smoothed, detection) = triggers[k].observe(raw, at: time)
            onScore?(ScoreEvent(keyword: triggers[k].keyword, time: time, raw: raw, smoothed: smoothed))
            if let detection { onDetection(detection) }
        }
    }

    mutating func setSensitivity(_ sensitivity: Float, for keyword: String) -> Bool {
        guard let k = triggers.firstIndex(where: { $0.keyword == keyword }) else { return false }
        triggers[k].setThreshold(model.detection.sensitivityMap.threshold(forSensitivity: sensitivity))
        return true
    }

    mutating func reset() {
        network.reset()
        for k in triggers.indices { triggers[k].reset() }
    }
}

extension Detector {
    /// The detections `keyword` of `model` makes at each of `thresholds`, from the raw network
    /// scores of one run (`ScoreEvent.raw` and `.time` of that keyword, in order): the same
    /// smoothing, trigger level, refractory period and warm-up as a live detector, without
    /// running the network again — a threshold sweep costs one pass of the network.
    public static func replay(_ scores: [ScoreEvent], keyword: String, of model: KeywordModel, settings: KeywordSettings = KeywordSettings(),
                              thresholds: [Float]) throws(DetectorError) -> [[Detection]] {
        let runner = try ModelRunner(model: model, settings: [keyword: settings])
        guard let trigger = runner.triggers.first(where: { $0.keyword == keyword }) else {
            throw .unknownKeyword(keyword, known: model.keywords)
        }
        return thresholds.map { threshold in
            var replayed = trigger
            replayed.setThreshold(threshold)
            return scores.compactMap { replayed.observe($0.raw, at: $0.time).detection }
        }
    }
}
