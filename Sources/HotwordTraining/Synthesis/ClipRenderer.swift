import Foundation
import HotwordAudio
import HotwordCore

/// Renders one planned clip: engine → trim → level → silence → WAV (and the recogniser's copy).
struct ClipRenderer: Sendable {
    let outputDirectory: URL
    let scratch: URL
    let check: KeywordCheck?
    let engines: [EngineKind: any SpeechEngine]

    static let sampleRate = AudioFormat.sampleRate
    /// Kept around the detected speech so weak onsets and endings (h, s, f) are not cut.
    static let margin = sampleRate / 20

    var checkDirectory: URL { Self.checkDirectory(in: scratch) }

    static func checkDirectory(in scratch: URL) -> URL { scratch.appendingPathComponent("check") }

    static func checkID(_ index: Int) -> String { "clip\(index)" }

    /// Never throws: a failure becomes a dropped entry with the reason.
    func render(_ job: ClipJob, id: Int) -> ManifestEntry {
        var entry = ManifestEntry(
            file: nil, kind: job.kind, text: job.text, engine: job.voice.engine, voice: job.voice.name,
            language: job.voice.language, rate: job.style.rate, pitch: job.style.pitch, levelDB: job.levelDB,
            leadSeconds: job.leadSeconds, tailSeconds: job.tailSeconds, speechSeconds: nil, kept: false,
            reason: nil, rule: job.rule)
        let folder = scratch.appendingPathComponent("job\(id)")
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            try createDirectory(folder)
            guard let engine = engines[job.voice.engine] else { throw SynthesisError.engineMissing(engine: job.voice.engine.rawValue, executable: job.voice.engine.executable) }
            let samples = try engine.render(job.text, voice: job.voice, style: job.style, scratch: folder)
            guard let speech = QualityRules.speech(in: samples) else {
                entry.reason = QualityRules.silent
                return entry
            }
            entry.speechSeconds = SynthesisPlan.rounded(Double(speech.count) / Double(Self.sampleRate), 3)
            let start = max(0, speech.lowerBound - Self.margin), end = min(samples.count, speech.upperBound + Self.margin)
            let clip = leveled(samples[start..<end], job: job)
            let file = "\(job.kind.rawValue)/\(job.fileName)"
            do {
                try AudioFileWriter.writeWAV(clip, to: outputDirectory.appendingPathComponent(file), sampleRate: Self.sampleRate)
            } catch {
                throw SynthesisError.audio("\(error)")
            }
            entry.file = file
            if job.kind == .positive, let check {
                try check.writeInput(clip, id: Self.checkID(id), in: checkDirectory)
            }
            entry.kept = true
        } catch {
            entry.reason = QualityRules.failed + ": \(error)"
        }
        return entry
    }

    /// The speech scaled to the job's peak level, between the job's silences.
    private func leveled(_ speech: ArraySlice<Float>, job: ClipJob) -> [Float] {
        let peak = speech.reduce(Float(0)) { max($0, abs($1)) }
        let gain = Float(pow(10, job.levelDB / 20)) / peak
        let lead = Int(job.leadSeconds * Double(Self.sampleRate)), tail = Int(job.tailSeconds * Double(Self.sampleRate))
        var clip = [Float](repeating: 0, count: lead + speech.count + tail)
        for (offset, sample) in speech.enumerated() { clip[lead + offset] = sample * gain }
        return clip
    }
}
