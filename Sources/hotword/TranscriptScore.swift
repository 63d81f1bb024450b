import Foundation
import HotwordTranscripts

/// One file of `transcribe --reference`: what was said, what the engine heard, and the errors.
struct FileScore: Encodable {
    var file: String
    var reference: String
    var transcript: String
    var errors: WordErrors
    /// Seconds of audio, and how long the engine took for it.
    var audioSeconds: Double
    var transcribingSeconds: Double

    var text: String {
        "\(file)\t\(percent(errors.rate))\t\(counts(errors))\t\(transcript.isEmpty ? "…" : transcript)"
    }

    fileprivate enum CodingKeys: String, CodingKey {
        case file, reference, transcript, substitutions, deletions, insertions
        case referenceWords = "reference_words", wer, audioSeconds = "audio_seconds", transcribingSeconds = "transcribing_seconds"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(file, forKey: .file)
        try container.encode(reference, forKey: .reference)
        try container.encode(transcript, forKey: .transcript)
        try encodeErrors(errors, into: &container)
        try container.encode(rounded(audioSeconds), forKey: .audioSeconds)
        try container.encode(rounded(transcribingSeconds), forKey: .transcribingSeconds)
    }
}

/// The whole reference list: every file's errors together (each weighed by its words), and speed.
struct TotalScore: Encodable {
    var files: [FileScore]
    /// Files that could not be read or transcribed: left out of the total.
    var failed: [String]

    var errors: WordErrors { files.map(\.errors).reduce(WordErrors(), +) }
    var audioSeconds: Double { files.map(\.audioSeconds).reduce(0, +) }
    var transcribingSeconds: Double { files.map(\.transcribingSeconds).reduce(0, +) }
    /// The engine's time per second of audio.
    var realTimeFactor: Double { audioSeconds > 0 ? transcribingSeconds / audioSeconds : 0 }

    var text: String {
        "total\t\(percent(errors.rate))\t\(counts(errors))\t\(files.count) files, "
            + "\(format(audioSeconds, 1)) s of audio in \(format(transcribingSeconds, 1)) s (\(format(realTimeFactor, 2)) of real time)"
            + (failed.isEmpty ? "" : "; \(failed.count) failed, not counted")
    }

    fileprivate enum CodingKeys: String, CodingKey {
        case files, failed, total
    }

    fileprivate enum TotalKeys: String, CodingKey {
        case files, substitutions, deletions, insertions, referenceWords = "reference_words", wer
        case audioSeconds = "audio_seconds", transcribingSeconds = "transcribing_seconds", realTimeFactor = "real_time_factor"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(files, forKey: .files)
        try container.encode(failed, forKey: .failed)
        var total = container.nestedContainer(keyedBy: TotalKeys.self, forKey: .total)
        try total.encode(files.count, forKey: .files)
        try encodeErrors(errors, into: &total)
        try total.encode(rounded(audioSeconds), forKey: .audioSeconds)
        try total.encode(rounded(transcribingSeconds), forKey: .transcribingSeconds)
        try total.encode(rounded(realTimeFactor), forKey: .realTimeFactor)
    }

    var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try! encoder.encode(self), as: UTF8.self)
    }
}

/// The counts and the rate under the keys both objects use (`wer`: null for a reference without words).
private protocol ErrorKeys: CodingKey {
    static var substitutions: Self { get }
    static var deletions: Self { get }
    static var insertions: Self { get }
    static var referenceWords: Self { get }
    static var wer: Self { get }
}

extension FileScore.CodingKeys: ErrorKeys {}
extension TotalScore.TotalKeys: ErrorKeys {}

private func encodeErrors<Keys: ErrorKeys>(_ errors: WordErrors, into container: inout KeyedEncodingContainer<Keys>) throws {
    try container.encode(errors.substitutions, forKey: .substitutions)
    try container.encode(errors.deletions, forKey: .deletions)
    try container.encode(errors.insertions, forKey: .insertions)
    try container.encode(errors.referenceWords, forKey: .referenceWords)
    try container.encode(errors.rate.map(rounded), forKey: .wer)
}

private func rounded(_ value: Double) -> Double { (value * 10_000).rounded() / 10_000 }

private func percent(_ rate: Double?) -> String { rate.map { "WER \(format($0 * 100, 1)) %" } ?? "WER -" }

private func counts(_ errors: WordErrors) -> String {
    "S \(errors.substitutions) D \(errors.deletions) I \(errors.insertions) of \(errors.referenceWords)"
}
