import Foundation

/// One clip in `manifest.jsonl`: what was spoken, by which voice, how, and whether it was kept.
public struct ManifestEntry: Sendable, Hashable, Codable {
    /// Path relative to the output folder (`positive/…` when kept, `dropped/positive/…` when
    /// dropped); nil when the engine produced no audio.
    public var file: String?
    public var kind: ClipKind
    public var text: String
    public var engine: EngineKind
    public var voice: String
    public var language: String
    /// Relative to the voice's default (see `SpeakingStyle`).
    public var rate: Double
    public var pitch: Double
    /// Peak level in dBFS.
    public var levelDB: Double
    /// Silence added before and after the speech, seconds.
    public var leadSeconds: Double
    public var tailSeconds: Double
    /// The speech itself (engine silence trimmed), seconds; nil when there was none.
    public var speechSeconds: Double?
    public var kept: Bool
    /// Why a clip was dropped.
    public var reason: String?
    /// The confusable generator's rule for a confusable phrase.
    public var rule: String?

    enum CodingKeys: String, CodingKey {
        case file, kind, text, engine, voice, language, rate, pitch, kept, reason, rule
        case levelDB = "level_db", leadSeconds = "lead_s", tailSeconds = "tail_s", speechSeconds = "speech_s"
    }
}

/// `manifest.jsonl`: one JSON object per line, in a fixed order with sorted keys, so the same
/// run gives the same bytes.
public enum Manifest {
    public static let fileName = "manifest.jsonl"

    public static func read(_ url: URL) throws(SynthesisError) -> [ManifestEntry] {
        let text: String
        do {
            text = try String(contentsOf: url, encoding: .utf8)
        } catch {
            throw .file(path: url.path, reason: "cannot read the manifest: \(error.localizedDescription)")
        }
        let decoder = JSONDecoder()
        var entries: [ManifestEntry] = []
        for (number, line) in text.split(separator: "\n").enumerated() {
            do {
                entries.append(try decoder.decode(ManifestEntry.self, from: Data(line.utf8)))
            } catch {
                throw .file(path: url.path, reason: "line \(number + 1) is not a manifest entry: \(error)")
            }
        }
        return entries
    }

    static func write(_ entries: [ManifestEntry], to url: URL) throws(SynthesisError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var data = Data()
        do {
            for entry in entries {
                data.append(try encoder.encode(entry))
                data.append(0x0A)
            }
            try data.write(to: url, options: .atomic)
        } catch {
            throw .file(path: url.path, reason: "cannot write the manifest: \(error.localizedDescription)")
        }
    }
}
