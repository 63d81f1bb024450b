import ArgumentParser
import Foundation
import HotwordAssistant
import HotwordCore
import HotwordModels

/// Model and detector options shared by every command that listens.
struct DetectorOptions: ParsableArguments {
    static let defaultModel = "hey_susi"

    @Option(name: .customLong("model"), help: ArgumentHelp(
        "A model file, or the name of a bundled model (hey_susi, computer, jarvis, alexa). Repeat for several. (default: \(defaultModel); for run, [wake] models, which are \(defaultModel); for serve, [wyoming] models, which are every bundled model)",
        valueName: "MODEL"))
    var givenModels: [String] = []

    @Option(help: ArgumentHelp(
        "Sensitivity in [0, 1]: NAME=S for one keyword (hey_susi=0.8 or \"hey susi=0.8\"), or S for all, or S,S… one per keyword in model order; comma-separated or repeated. Higher = more detections; 0.5 = tuned default.",
        valueName: "NAME=S|S"))
    var sensitivity: [String] = []

    @Option(help: "Audio gain applied before detection (e.g. 2 for a quiet microphone). (default: 1)")
    var gain: Float?

    /// The models asked for, or the default one.
    var models: [String] { givenModels.isEmpty ? [Self.defaultModel] : givenModels }

    func loadModels() throws -> [KeywordModel] {
        try models.map(Self.loadModel)
    }

    /// A model file or the name of a bundled model; one that does not load is a wrong model
    /// (status 78), not a wrong command line.
    static func loadModel(_ name: String) throws -> KeywordModel {
        do {
            return try ModelStore.load(named: name)
        } catch .notFound(let missing, _, _) {
            let meant = ConfigurationLoader.closestModel(to: missing).map { "did you mean '\($0)'? " } ?? ""
            throw CommandFailure("no model named '\(missing)' (\(meant)the models: \(ModelStore.bundledNames().joined(separator: ", "))); give a path or one of these",
                                 status: .configuration)
        } catch {
            throw CommandFailure("\(error)", status: .configuration)
        }
    }

    func makeDetector(_ models: [KeywordModel]) throws -> Detector {
        let keywords = models.flatMap(\.keywords)
        let settings = try sensitivities(for: keywords).mapValues { KeywordSettings(sensitivity: $0) }
        do {
            return try Detector(models: models, settings: settings, gain: gain ?? 1)
        } catch {
            throw CommandFailure("\(error)", status: .configuration)
        }
    }

    func validate() throws {
        _ = try SensitivityOption(sensitivity)
        if let gain, !(gain.isFinite && gain > 0 && gain <= 100) {
            throw ValidationError("--gain must be more than 0 and at most 100, not \(gain)")
        }
    }

    /// `--sensitivity` per keyword of `keywords`; empty when it was not given. A keyword name
    /// the models do not have is a wrong command line (status 64).
    func sensitivities(for keywords: [String]) throws(ValidationError) -> [String: Float] {
        try SensitivityOption(sensitivity).values(for: keywords)
    }

    /// Puts `--sensitivity` for `keywords` over the files' per-keyword settings.
    func applySensitivity(to configuration: inout AssistantConfiguration, keywords: [String]) throws(ValidationError) {
        for (keyword, sensitivity) in try sensitivities(for: keywords) {
            configuration.wake.keywords[KeywordName.normalized(keyword), default: .init()].sensitivity = sensitivity
        }
    }
}
