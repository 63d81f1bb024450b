import ArgumentParser
import HotwordCore

/// `--check-model` and its threshold: a second network as the second stage after a detection.
struct ModelCheckOptions: ParsableArguments {
    @Option(name: .customLong("check-model"), help: ArgumentHelp("A second stage: keep a detection only where this model (the same keyword on another front end) also scores at least --check-model-threshold in the 3 s around it (2 s before, 1 s after).", valueName: "FILE"))
    var model: String?

    @Option(name: .customLong("check-model-threshold"), help: ArgumentHelp("The second model's score threshold (default: its own at sensitivity 0.5).", valueName: "T"))
    var threshold: Float?

    /// The check, if one was asked for; it must hear `keyword`.
    func check(for keyword: String) throws -> ModelCheck? {
        guard let model else {
            if threshold != nil { throw ValidationError("--check-model-threshold needs --check-model") }
            return nil
        }
        let second = try DetectorOptions.loadModel(model)
        guard second.keywords == [keyword] else {
            throw ValidationError("--check-model \(model): hears \(second.keywords.joined(separator: ", ")), expected the keyword '\(keyword)' alone")
        }
        let limit = threshold ?? second.detection.sensitivityMap.threshold(forSensitivity: 0.5)
        guard limit > 0, limit < 1 else { throw ValidationError("--check-model-threshold \(limit): expected a score between 0 and 1") }
        do {
            return try ModelCheck(model: second, threshold: limit)
        } catch {
            throw CommandFailure("--check-model \(model): \(error)", status: .configuration)
        }
    }
}
