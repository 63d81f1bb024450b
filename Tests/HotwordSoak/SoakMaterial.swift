import Foundation
import HotwordAssistant
import HotwordAudio
import HotwordCore
import HotwordTestSupport
import HotwordTraining

/// A wake-word recording ready to be said: trimmed to the word with a little of its own room
/// around it, at the common speech level.
struct WakeClip: Sendable {
    var name: String
    var samples: [Float]
    /// Where the word starts and ends in `samples` (energy bounds, as training aligns keywords).
    var wordStart: Int
    var wordEnd: Int
}

/// Everything the soak stream is made of, at 16 kHz: real wake words (those the detector
/// finds on their own, see `screenWakeClips`), spoken questions, real background speech and a
/// bed of real noise.
struct SoakMaterial: Sendable {
    static let sampleRate = 16_000
    /// Every clip's speech level, dBFS (as `hotword eval` levels its streams).
    static let speechLevel = EvaluationStream.speechLevel

    var wakeClips: [WakeClip]
    var questions: [[Float]]
    var speech: [[Float]]
    /// Noise files one after another, each at RMS 1; scaled when mixed.
    var noiseBed: [Float]
    /// How many wake clips were tried, and why the others were left out.
    var wakeClipsTried: Int
    var wakeClipsRejected: [(name: String, reason: String)]

    static let questionTexts = [
        "what is the weather like today", "what time is it", "tell me a joke", "how tall is mount everest",
        "who wrote the book war and peace", "what is the capital of france", "set a timer for five minutes",
        "how far away is the moon",
    ]

    /// Loads the material from `data` (`../shared/data`). `speechClips` and `noiseSeconds` bound
    /// how much background is held in memory; it is looped.
    static func load(data: URL, keyword: String, model: KeywordModel, wakeClips wanted: Int, speechClips: Int,
                     noiseSeconds: Double, log: (String) -> Void) async throws -> SoakMaterial {
        let noiseFiles = try audioFiles(in: data.appendingPathComponent("noise"))
        var steady: [[Float]] = []
        for file in noiseFiles {
            let samples = try AudioFileReader.read(file).samples
            if isSteady(samples) { steady.append(Mixing.normalise(samples, toRMS: 1)) }
        }
        let perNoiseFile = Int(noiseSeconds * Double(sampleRate)) / max(1, steady.count)
        let noiseBed = steady.flatMap { $0.prefix(perNoiseFile) }
        log("noise: \(steady.count) steady files of \(noiseFiles.count), \(seconds(noiseBed.count)) s")

        // Background: speechocean762's read sentences and asterisk's prompts, every n-th file.
        let speechFiles = try ["speechocean762", "asterisk_en"].flatMap {
            try audioFiles(in: data.appendingPathComponent("speech").appendingPathComponent($0))
        }
        let step = max(1, speechFiles.count / max(1, speechClips))
        let speech = try stride(from: 0, to: speechFiles.count, by: step).prefix(speechClips).map {
            levelled(try AudioFileReader.read(speechFiles[$0]).samples)
        }
        log("background speech: \(speech.count) clips, \(seconds(speech.reduce(0) { $0 + $1.count })) s")

        let voice = try EspeakSynthesizer(EspeakConfiguration(voice: "en-us+klatt4", rate: 175))
        var questions: [[Float]] = []
        for text in questionTexts {
            let audio = try await voice.synthesize(text)
            let samples = try Resampler.convert(audio.samples, from: Double(audio.sampleRate), to: Double(sampleRate))
            let bounds = SpeechBounds.find(in: samples).map { $0.start..<$0.end } ?? samples.indices
            questions.append(levelled(Array(samples[bounds])))
        }

        let keywordFolder = data.appendingPathComponent("keywords").appendingPathComponent(keyword)
        let candidates = try audioFiles(in: keywordFolder)
        var material = SoakMaterial(wakeClips: [], questions: questions, speech: speech, noiseBed: noiseBed,
                                    wakeClipsTried: 0, wakeClipsRejected: [])
        try material.screenWakeClips(candidates, keyword: keyword, model: model, wanted: wanted)
        log("wake words: \(material.wakeClips.count) clips of '\(keyword)' kept of \(material.wakeClipsTried) tried")
        return material
    }

    /// The noise bed's level under speech at `snr` dB.
    static func noiseScale(snr: Float) -> Float { pow(10, (speechLevel - snr) / 20) }

    /// Keeps the first `wanted` recordings the detector finds exactly once, near the word's end,
    /// in the setting the stream gives them (noise before, a question after) over each of
    /// `screeningOffsets` stretches of the noise bed. The soak checks the daemon, not the model:
    /// a recording the model misses on its own says nothing about it.
    private mutating func screenWakeClips(_ files: [URL], keyword: String, model: KeywordModel, wanted: Int) throws {
        let detector = try Detector(models: [model])
        let offsets = stride(from: 0, to: noiseBed.count, by: max(1, noiseBed.count / Self.screeningOffsets))
        for file in files where wakeClips.count < wanted {
            wakeClipsTried += 1
            let name = file.deletingPathExtension().lastPathComponent
            guard let clip = Self.wakeClip(try AudioFileReader.read(file).samples, name: name) else {
                wakeClipsRejected.append((name, "no speech found"))
                continue
            }
            let block = WakeBlock(clip: clip, question: questions[wakeClips.count % questions.count])
            let end = Double(block.wordEnd) / Double(Self.sampleRate)
            let failure = offsets.lazy.compactMap { offset -> String? in
                let audio = block.render(noiseBed: self.noiseBed, noiseOffset: offset, noiseScale: Self.noiseScale(snr: SoakStream.snr))
                detector.reset()
                let found = detector.process(audio).filter { $0.keyword == keyword }
                let noise = String(format: "over the noise at %.0f s", Double(offset) / Double(Self.sampleRate))
                if found.count != 1 { return "detected \(found.count) times on its own \(noise)" }
                if !SoakReport.timingTolerance.contains(found[0].time - end) {
                    return String(format: "detected %+.3f s from the word's end ", found[0].time - end) + noise
                }
                return nil
            }.first
            if let failure {
                wakeClipsRejected.append((name, failure))
            } else {
                wakeClips.append(clip)
            }
        }
    }

    /// Stretches of the noise bed, evenly spaced, that a wake-word recording is screened over.
    static let screeningOffsets = 24

    /// The word with 0.25 s before and 0.3 s after it, faded in and out over 10 ms.
    static func wakeClip(_ samples: [Float], name: String) -> WakeClip? {
        guard let bounds = SpeechBounds.find(in: samples) else { return nil }
        let start = max(0, bounds.start - sampleRate / 4)
        let end = min(samples.count, bounds.end + sampleRate * 3 / 10)
        var clip = levelled(Array(samples[start..<end]), speech: (bounds.start - start)..<(bounds.end - start))
        let fade = min(sampleRate / 100, clip.count / 2)
        for n in 0..<fade {
            let gain = Float(n) / Float(fade)
            clip[n] *= gain
            clip[clip.count - 1 - n] *= gain
        }
        return WakeClip(name: name, samples: clip, wordStart: bounds.start - start, wordEnd: bounds.end - start)
    }

    /// Whether noise is steady enough for the assistant's voice-activity detection to take it
    /// for silence from its first sample (at most a tenth of its frames count as speech; 12 of the
    /// 67 recordings): with the others more questions would run to their maximum length, which
    /// tests nothing more, only more slowly.
    static func isSteady(_ samples: [Float]) -> Bool {
        var detector = VoiceActivityDetector()
        var frames = 0, speech = 0
        samples.withUnsafeBufferPointer { buffer in
            detector.process(buffer) { isSpeech, _ in
                frames += 1
                if isSpeech { speech += 1 }
            }
        }
        return frames >= 100 && speech * 10 <= frames
    }

    /// `samples` with the speech in `speech` (default: its energy bounds) at `speechLevel`.
    static func levelled(_ samples: [Float], speech: Range<Int>? = nil) -> [Float] {
        let range = speech ?? SpeechBounds.find(in: samples).map { $0.start..<$0.end } ?? samples.indices
        let level = Mixing.rms(samples[range])
        guard level > 1e-7 else { return samples }
        let gain = pow(10, speechLevel / 20) / level
        return samples.map { max(-1, min(1, $0 * gain)) }
    }

    private static func audioFiles(in folder: URL) throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { ["flac", "wav"].contains($0.pathExtension.lowercased()) }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    private static func seconds(_ samples: Int) -> String {
        String(format: "%.0f", Double(samples) / Double(sampleRate))
    }
}
