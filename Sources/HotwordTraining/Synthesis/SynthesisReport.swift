import Foundation

/// What a synthesis run made: every manifest entry, and counts of kept and dropped clips.
public struct SynthesisReport: Sendable {
    public var phrase: String
    public var entries: [ManifestEntry]
    /// The texts spoken as hard negatives: the confusable phrases, then the sound-alike words
    /// (`rule` tells them apart).
    public var confusables: [Confusable]
    public var voiceCount: Int
    public var seconds: Double

    /// Clips of one group (an engine, a voice...): how many were made and dropped, and why.
    public struct Tally: Sendable, Hashable {
        public var key: String
        public var total: Int
        public var dropped: Int
        /// Dropped clips by reason category ("silent", "too short", "not recognised by pocketsphinx"...).
        public var reasons: [String: Int]

        public var droppedShare: Double { total == 0 ? 0 : Double(dropped) / Double(total) }
    }

    /// Tallies of the clips of `kind` (all kinds if nil) grouped by `key`, sorted by key.
    public func tally(_ kind: ClipKind?, by key: (ManifestEntry) -> String) -> [Tally] {
        var tallies: [String: Tally] = [:]
        for entry in entries where kind == nil || entry.kind == kind {
            let name = key(entry)
            var tally = tallies[name] ?? Tally(key: name, total: 0, dropped: 0, reasons: [:])
            tally.total += 1
            if !entry.kept {
                tally.dropped += 1
                tally.reasons[QualityRules.category(of: entry.reason ?? ""), default: 0] += 1
            }
            tallies[name] = tally
        }
        return tallies.values.sorted { $0.key < $1.key }
    }

    /// "espeak-ng en-us" for every variant of that voice, "flite slt", "festival kal_diphone".
    public static func voiceFamily(_ entry: ManifestEntry) -> String {
        guard entry.engine == .espeakNG else { return "\(entry.engine.rawValue) \(entry.voice)" }
        return "\(entry.engine.rawValue) \(entry.voice.split(separator: "+").first.map(String.init) ?? entry.voice)"
    }

    /// The espeak-ng variant ("m3", "klatt", or "none"), for other engines the voice.
    public static func variant(_ entry: ManifestEntry) -> String {
        guard entry.engine == .espeakNG else { return "\(entry.engine.rawValue) \(entry.voice)" }
        let parts = entry.voice.split(separator: "+")
        return "espeak-ng +" + (parts.count > 1 ? String(parts[1]) : "(none)")
    }
}
