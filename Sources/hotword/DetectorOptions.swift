import ArgumentParser
import Foundation
import HotwordAssistant
import HotwordCore
import HotwordModels

/// Model and detector options shared by every command that listens.
struct DetectorOptions: ParsableArguments {
    static let defaultModel = "hey_susi"

    @Option(name: .customLong("model"), help: ArgumentHelp(
        "A model file, or the name of a bundled model (hey_susi, computer, jarvis, alexa). Repeat for several. (default: \(defaultModel))",
        valueName: "MODEL"))
    var givenModels: [String] = []

    @Option(help: ArgumentHelp(
        "Sensitivity in [0, 1] per keyword, in model order, comma-separated; one value applies to all. Higher = more detections; 0.5 = tuned default.",
        valueName: "S[,S…]"))
    var sensitivity: String?

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

    /// `--sensitivity` per keyword; empty when it was not given.
    func sensitivities(for keywords: [String]) throws -> [String: Float] {
        guard let sensitivity else { return [:] }
        let values = sensitivity.split(separator: ",").map { Float($0.trimmingCharacters(in: .whitespaces)) }
        guard values.allSatisfy({ $0 != nil && (0...1).contains($0!) }), values.count == 1 || values.count == keywords.count else {
            throw ValidationError("--sensitivity '\(sensitivity)': expected one number in [0, 1], or one per keyword (\(keywords.count): \(keywords.joined(separator: ", ")))")
        }
        var settings: [String: Float] = [:]
        for (index, keyword) in keywords.enumerated() {
            settings[keyword] = values.count == 1 ? values[0] : values[index]
        }
        return settings
    }

    /// Puts `--sensitivity` (one value, or one per keyword of `keywords`) over the files' per-keyword settings.
    func applySensitivity(to configuration: inout AssistantConfiguration, keywords: [String]) throws {
        for (keyword, sensitivity) in try sensitivities(for: keywords) {
            configuration.wake.keywords[keyword, default: .init()].sensitivity = sensitivity
        }
    }
}
