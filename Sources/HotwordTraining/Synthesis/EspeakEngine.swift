import Foundation
import HotwordChildProcess

/// espeak-ng: formant synthesis, eight English accents, about a hundred voice variants (male,
/// female, old, whispering, croaking, Klatt...) and many other languages.
struct EspeakEngine: SpeechEngine {
    let kind = EngineKind.espeakNG
    let executable: URL
    let subprocess: Subprocess

    /// Languages whose voices read the (English) phrase with their own rules: wake words are said
    /// with accents. All read Latin script themselves (hi or ru, say, switch to English).
    static let accentLanguages = ["de", "es", "fr-fr", "it", "nl", "pl", "pt-br", "sv", "tr", "cs"]
    /// Variants the accent voices are combined with (a few, so accents stay a small share).
    static let accentVariants = ["", "m2", "m5", "f2", "f4"]

    /// Every English voice (MBROLA ones excepted: they need the non-free mbrola program) with
    /// every variant, plus the accent voices.
    func voices() throws(SynthesisError) -> [Voice] {
        let english = try listing("--voices=en")
            .filter { $0.language != "variant" && !$0.file.hasPrefix("mb/") }
        let variants = try listing("--voices=variant").compactMap { entry -> String? in
            entry.file.hasPrefix("!v/") ? String(entry.file.dropFirst(3)) : nil
        }
        let installed = Set(try listing("--voices").map(\.language))
        var voices: [Voice] = []
        for language in Set(english.map(\.language)).sorted() {
            voices.append(Voice(engine: kind, name: language, language: language))
            for variant in variants { voices.append(Voice(engine: kind, name: "\(language)+\(variant)", language: language)) }
        }
        for language in Self.accentLanguages where installed.contains(language) {
            for variant in Self.accentVariants where variant.isEmpty || variants.contains(variant) {
                voices.append(Voice(engine: kind, name: variant.isEmpty ? language : "\(language)+\(variant)", language: language))
            }
        }
        return voices
    }

    /// Rate as words per minute around espeak-ng's default 175; pitch on its 0–99 scale, where
    /// 50 is the default and (measured) +70 steps double the fundamental frequency.
    func render(_ text: String, voice: Voice, style: SpeakingStyle, scratch: URL) throws(SynthesisError) -> [Float] {
        let words = Int((175 * style.rate).rounded()).clamped(to: 80...450)
        let pitch = Int((50 + 70 * log2(style.pitch)).rounded()).clamped(to: 0...99)
        let output = scratch.appendingPathComponent("espeak.wav")
        let textFile = try writeText(text, in: scratch)
        try SynthesisError.reporting { () throws(ProgramFailure) in
            try subprocess.run(executable, ["-v", voice.name, "-s", String(words), "-p", String(pitch), "-w", output.path, "-f", textFile.path])
        }
        return try readOutput(output)
    }

    /// The rows of `espeak-ng --voices…`: language and voice file (columns 2 and 5). Variant files
    /// whose names contain a space cannot be told apart from the next column and are left out.
    private func listing(_ option: String) throws(SynthesisError) -> [(language: String, file: String)] {
        let text = try SynthesisError.reporting { () throws(ProgramFailure) in try subprocess.run(executable, [option]) }.standardOutput
        return text.split(separator: "\n").dropFirst().compactMap { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            guard fields.count >= 5, fields.count == 5 || fields[5].hasPrefix("(") else { return nil }
            return (fields[1], fields[4])
        }
    }
}

extension Comparable {
    func clamped(to range: ClosedRange<Self>) -> Self { min(max(self, range.lowerBound), range.upperBound) }
}
