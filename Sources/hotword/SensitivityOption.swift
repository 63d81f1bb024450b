import ArgumentParser
import Foundation
import HotwordCore

/// What `--sensitivity` says: `NAME=VALUE` per keyword (`hey_susi=0.8`; the name in either
/// spelling, `hey_susi` or "hey susi"), or plain values — one for every keyword, or one per keyword
/// in model order. A plain value given with names applies to the keywords not named.
struct SensitivityOption {
    let text: String
    private var named: [(name: String, value: Float)] = []
    private var plain: [Float] = []

    /// Reads the comma-separated items of every `--sensitivity` given.
    init(_ given: [String]) throws(ValidationError) {
        text = given.joined(separator: ",")
        for item in given.flatMap({ $0.split(separator: ",") }) {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard let value = Float(parts.last!), (0...1).contains(value), parts.first?.isEmpty == false else {
                throw ValidationError("--sensitivity '\(item)': expected NAME=VALUE (hey_susi=0.8) or a value, each in [0, 1]")
            }
            if parts.count == 2 { named.append((parts[0], value)) } else { plain.append(value) }
        }
        if plain.count > 1, !named.isEmpty {
            throw ValidationError("--sensitivity '\(text)': with NAME=VALUE items, at most one plain value (for the other keywords)")
        }
    }

    /// The sensitivity of each of `keywords` that the option sets.
    func values(for keywords: [String]) throws(ValidationError) -> [String: Float] {
        var values: [String: Float] = [:]
        if plain.count == 1 {
            for keyword in keywords { values[keyword] = plain[0] }
        } else if !plain.isEmpty {
            guard plain.count == keywords.count else {
                throw ValidationError("--sensitivity '\(text)': \(plain.count) values for \(keywords.count) keywords (\(Self.list(keywords))); give one, one per keyword, or NAME=VALUE")
            }
            for (keyword, value) in zip(keywords, plain) { values[keyword] = value }
        }
        for (name, value) in named {
            guard let keyword = KeywordName.match(name, in: keywords) else {
                throw ValidationError("--sensitivity '\(name)=\(value)': no keyword '\(name)' in the models loaded (\(Self.list(keywords)))")
            }
            values[keyword] = value
        }
        return values
    }

    private static func list(_ keywords: [String]) -> String {
        keywords.map { "'\($0)'" }.joined(separator: ", ")
    }
}
