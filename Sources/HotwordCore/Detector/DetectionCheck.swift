/// A second opinion on a detection, asked of the audio around it: a check that runs only on
/// the detector's candidates, so it may cost far more per second of audio than the detector.
/// `hotword eval --check-phrase` and `hotword detect --check-phrase` ask it of the same window.
public protocol DetectionCheck: Sendable {
    /// Whether each window of 16 kHz mono audio holds the keyword.
    func accepts(_ windows: [[Float]]) throws -> [Bool]
}

/// The audio a second stage hears around a detection: from `before` seconds before it to
/// `after` seconds after it (a detection fires before the keyword has ended).
public enum CheckedWindow {
    public static let before = 2.0
    public static let after = 1.0

    /// The samples of the window around a detection at `time` seconds: from its start (not
    /// before the stream's first sample) to its end (not past `available` samples).
    public static func samples(around time: Double, sampleRate: Int, available: Int) -> Range<Int> {
        let rate = Double(sampleRate)
        let start = max(0, Int((time - before) * rate))
        let end = min(available, Int((time + after) * rate))
        return start..<max(start, end)
    }

    /// The number of samples after which the window around a detection at `time` is complete.
    public static func end(of time: Double, sampleRate: Int) -> Int {
        Int((time + after) * Double(sampleRate))
    }
}

extension Detector {
    /// Throws `unknownKeyword` for the first of `checked` (in order) that none of this detector's
    /// models has: a second stage for a keyword nobody detects is a wrong setup.
    public func requireKeywords(_ checked: some Sequence<String>) throws(DetectorError) {
        if let unknown = checked.sorted().first(where: { !keywords.contains($0) }) {
            throw .unknownKeyword(unknown, known: keywords)
        }
    }
}

extension KeywordModel {
    /// The keywords of `models` whose detections must pass a phrase check, each with
    /// pocketsphinx's threshold per phone: where the user's `checkPhrase` says so, else where
    /// the model asks for one (`DetectionDefaults.phraseCheck`; `defaultThresholdPerPhone` for
    /// a model that does not but is checked all the same).
    public static func checkedPhrases(of models: [KeywordModel], settings: [String: KeywordSettings],
                                      defaultThresholdPerPhone: Double) -> [String: Double] {
        var checked: [String: Double] = [:]
        for model in models {
            for keyword in model.keywords where settings[keyword]?.checkPhrase ?? (model.detection.phraseCheck != nil) {
                checked[keyword] = model.detection.phraseCheck?.thresholdPerPhone ?? defaultThresholdPerPhone
            }
        }
        return checked
    }
}
