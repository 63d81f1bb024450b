import Foundation
import HotwordChildProcess

/// The Festival Speech Synthesis System: diphone voices (kal_diphone, ked_diphone) and HMM voices
/// (cmu_us_slt_arctic_hts), listed by `festival` and rendered by its `text2wave` script.
struct FestivalEngine: SpeechEngine {
    let kind = EngineKind.festival
    let text2wave: URL
    let festival: URL
    let subprocess: Subprocess

    func voices() throws(SynthesisError) -> [Voice] {
        let text = try SynthesisError.reporting { () throws(ProgramFailure) in try subprocess.run(festival, ["--batch", "(print (voice.list))"]) }.standardOutput
        return text.split(whereSeparator: { $0.isWhitespace || $0 == "(" || $0 == ")" }).map(String.init)
            .filter(Self.isVoiceName)
            .map { Voice(engine: kind, name: $0, language: "en") }
    }

    /// Rate through the duration stretch (HTS voices ignore it and take the HTS engine's speed
    /// instead); pitch by speed perturbation of the output, which works the same for every voice.
    func render(_ text: String, voice: Voice, style: SpeakingStyle, scratch: URL) throws(SynthesisError) -> [Float] {
        guard Self.isVoiceName(voice.name) else {
            throw .invalidOption(name: "festival voice", value: voice.name, expected: "letters, digits and '_'")
        }
        let tempo = style.rate / style.pitch
        let rate = voice.name.hasSuffix("_hts")
            ? "(set! hts_engine_params (append hts_engine_params (list (list \"-r\" \(String(format: "%.4f", tempo))))))"
            : "(Parameter.set 'Duration_Stretch \(String(format: "%.4f", 1 / tempo)))"
        let output = scratch.appendingPathComponent("festival.wav")
        let textFile = try writeText(text, in: scratch)
        try SynthesisError.reporting { () throws(ProgramFailure) in
            try subprocess.run(text2wave, ["-o", output.path, "-eval", "(voice_\(voice.name))", "-eval", rate, textFile.path])
        }
        return try readOutput(output, pitch: style.pitch)
    }

    /// Voice names go into Scheme code, so only plain identifiers are accepted.
    static func isVoiceName(_ name: String) -> Bool {
        !name.isEmpty && name.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || $0 == "_" }
            && name.unicodeScalars.allSatisfy(\.isASCII)
    }
}
