import ArgumentParser
import Foundation
import HotwordCore
import HotwordModels

/// Model and detector options shared by every command that listens.
struct DetectorOptions: ParsableArguments {
    @Option(name: .customLong("model"), help: ArgumentHelp(
        "A model file, or the name of a bundled model (hey_susi, computer, jarvis, alexa). Repeat for several.",
        valueName: "MODEL"))
    var models: [String] = ["hey_susi"]

    @Option(help: ArgumentHelp(
        "Sensitivity in [0, 1] per keyword, in model order, comma-separated; one value applies to all. Higher = more detections; 0.5 = tuned default.",
        valueName: "S[,S…]"))
    var sensitivity: String?

    @Option(help: "Audio gain applied before detection (e.g. 2 for a quiet microphone).")
    var gain: Float = 1

    func loadModels() throws -> [KeywordModel] {
        try models.map { name in
            do {
                return try ModelStore.load(named: name)
            } catch {
                throw ValidationError("\(error)")
            }
        }
    }

    func makeDetector(_ models: [KeywordModel]) throws -> Detector {
        let keywords = models.flatMap(\.keywords)
        var settings: [String: KeywordSettings] = [:]
        if let sensitivity {
            let values = sensitivity.split(separator: ",").map { Float($0.trimmingCharacters(in: .whitespaces)) }
            guard values.allSatisfy({ $0 != nil && (0...1).contains($0!) }), values.count == 1 || values.count == keywords.count else {
                throw ValidationError("--sensitivity '\(sensitivity)': expected one number in [0, 1], or one per keyword (\(keywords.count): \(keywords.joined(separator: ", ")))")
            }
            for (index, keyword) in keywords.enumerated() {
                settings[keyword] = KeywordSettings(sensitivity: values.count == 1 ? values[0] : values[index])
            }
        }
        do {
            return try Detector(models: models, settings: settings, gain: gain)
        } catch {
            throw ValidationError("\(error)")
        }
    }
}
