import Foundation

/// Which clips are dropped, and why (the `reason` in the manifest):
/// - `failed`: the engine (or writing the file) failed;
/// - `silent`: no sound: the loudest sample is below −60 dBFS, or no 10 ms block stands out
///   (`SpeechBounds`);
/// - `too short` / `too long`: the speech (engine silence trimmed) lasts less than 0.3 × or more
///   than 2.5 × the median of the clips of the same text and kind (applied to groups of at
///   least 3): catches truncated, garbled or stuck output;
/// - `not recognised by pocketsphinx`: positives only, with `--check pocketsphinx` (`KeywordCheck`).
enum QualityRules {
    static let failed = "failed"
    static let silent = "silent"
    static let tooShort = "too short"
    static let tooLong = "too long"
    static let notRecognised = "not recognised by pocketsphinx"

    static let minimumPeak: Float = 0.001
    static let durationRange = 0.3...2.5
    static let minimumGroupForDuration = 3

    /// Where the speech is, or nil for a silent clip.
    static func speech(in samples: [Float]) -> Range<Int>? {
        guard samples.contains(where: { abs($0) >= minimumPeak }), let bounds = SpeechBounds.find(in: samples) else { return nil }
        return bounds.start..<bounds.end
    }

    /// Drops kept clips whose speech is far shorter or longer than usual for their text.
    static func applyDuration(to entries: inout [ManifestEntry]) {
        let groups = Dictionary(grouping: entries.indices.filter { entries[$0].kept && entries[$0].speechSeconds != nil },
                                by: { "\(entries[$0].kind.rawValue)|\(entries[$0].text)" })
        for indices in groups.values where indices.count >= minimumGroupForDuration {
            let durations = indices.map { entries[$0].speechSeconds! }.sorted()
            let middle = durations.count / 2
            let median = durations.count % 2 == 1 ? durations[middle] : (durations[middle - 1] + durations[middle]) / 2
            for index in indices {
                let seconds = entries[index].speechSeconds!
                let bound = { (factor: Double) in String(format: "%.1f × median %.2f s", factor, median) }
                if seconds < durationRange.lowerBound * median {
                    entries[index].kept = false
                    entries[index].reason = "\(tooShort): \(String(format: "%.2f", seconds)) s < \(bound(durationRange.lowerBound))"
                } else if seconds > durationRange.upperBound * median {
                    entries[index].kept = false
                    entries[index].reason = "\(tooLong): \(String(format: "%.2f", seconds)) s > \(bound(durationRange.upperBound))"
                }
            }
        }
    }

    /// The reason without its details ("too short: 0.1 s < …" → "too short"), for counting.
    static func category(of reason: String) -> String {
        String(reason.prefix(while: { $0 != ":" }))
    }
}
