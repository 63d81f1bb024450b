import Foundation
import Logging

/// "Would a listener recognise the phrase in this clip?", asked of pocketsphinx: keyword spotting
/// (`pocketsphinx_batch -kws`) with the phrase's pronunciations, over the US English model.
///
/// The rule: a clip passes when pocketsphinx spots any pronunciation of the phrase (CMU
/// dictionary variants and espeak-ng's reading) with a score ratio against its phone loop of at
/// least `thresholdPerPhone` raised to the number of phones — a per-phone threshold, so long and
/// short phrases are judged alike. Before decoding, each clip is normalised to a fixed peak and
/// given a faint noise floor (−55 dBFS RMS): digitally silent stretches otherwise throw
/// pocketsphinx's cepstral mean normalisation off and it misses even clearly spoken words.
///
/// The command-line program is used (not libpocketsphinx) so training does not depend on the
/// assistant's speech module; one process decodes a whole batch of clips, loading the model once.
public struct KeywordCheck: Sendable {
    public static let executableName = "pocketsphinx_batch"
    /// Calibrated on TTS clips and on the real recordings in shared/data/keywords: 1e-6 per
    /// phone keeps most clearly spoken clips and accepts none of the other keywords' clips.
    public static let defaultThresholdPerPhone = 1e-6

    /// The pseudo-words the dictionary file defines (w0p0 = first word, first pronunciation).
    struct Keyphrase: Sendable {
        var words: [String]
        var phoneCount: Int
    }

    let executable: URL
    let subprocess: Subprocess
    let thresholdPerPhone: Double
    let dictionaryLines: [String]
    let keyphrases: [Keyphrase]
    private let logger = Logger(label: "hotword.synthesis")

    /// The most pronunciation combinations spotted at once (they multiply across words).
    static let maximumKeyphrases = 16
    /// The most clips one pocketsphinx process decodes (a few seconds each: well within its timeout).
    static let clipsPerProcess = 200
    /// Peak level and noise floor of the copy pocketsphinx decodes.
    static let checkPeak: Float = 0.5
    static let noiseFloorAmplitude: Float = 0.003

    /// A check for `phrase`: pronunciations from `dictionary` (the CMU dictionary) and espeak-ng,
    /// programs from `searchPath` (PATH by default).
    public init(phrase: String, searchPath: String? = nil, dictionary: URL? = Pronouncer.defaultDictionary,
                thresholdPerPhone: Double = defaultThresholdPerPhone) throws(SynthesisError) {
        let words = Phrase.normalised(phrase).split(separator: " ").map(String.init)
        guard !words.isEmpty else { throw .emptyPhrase(phrase) }
        let subprocess = Subprocess(searchPath: searchPath)
        guard let executable = subprocess.locate(Self.executableName) else {
            throw .recognizerMissing(executable: Self.executableName, package: "pocketsphinx")
        }
        let pronouncer = Pronouncer(dictionary: dictionary, espeak: subprocess.locate("espeak-ng"), subprocess: subprocess)
        self.init(pronunciations: try pronouncer.pronunciations(of: words), executable: executable,
                  subprocess: subprocess, thresholdPerPhone: thresholdPerPhone)
    }

    /// `pronunciations[w]` lists the ARPAbet pronunciations of word `w` of the phrase.
    init(pronunciations: [[[String]]], executable: URL, subprocess: Subprocess,
         thresholdPerPhone: Double = defaultThresholdPerPhone) {
        self.executable = executable
        self.subprocess = subprocess
        self.thresholdPerPhone = thresholdPerPhone
        dictionaryLines = pronunciations.enumerated().flatMap { word, variants in
            variants.enumerated().map { variant, phones in "w\(word)p\(variant) " + phones.joined(separator: " ") }
        }
        var combinations: [Keyphrase] = [Keyphrase(words: [], phoneCount: 0)]
        for (word, variants) in pronunciations.enumerated() {
            combinations = combinations.flatMap { prefix in
                variants.enumerated().map { variant, phones in
                    Keyphrase(words: prefix.words + ["w\(word)p\(variant)"], phoneCount: prefix.phoneCount + phones.count)
                }
            }
            combinations = Array(combinations.prefix(Self.maximumKeyphrases))
        }
        keyphrases = combinations
    }

    /// Whether pocketsphinx spots the phrase in each clip (16 kHz mono), decoding in `jobs` processes.
    public func hears(_ clips: [[Float]], jobs: Int = 1) throws(SynthesisError) -> [Bool] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hotword-check-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try createDirectory(directory)
        let ids = clips.indices.map { "clip\($0)" }
        for (id, clip) in zip(ids, clips) { try writeInput(clip, id: id, in: directory) }
        let spotted = try detections(ids: ids, in: directory, jobs: jobs)
        return ids.map(spotted.contains)
    }

    /// Writes the copy of a clip that pocketsphinx decodes: `id`.raw, 16-bit little-endian PCM,
    /// normalised, with a noise floor seeded by `id` (so the verdict is reproducible).
    func writeInput(_ samples: [Float], id: String, in directory: URL) throws(SynthesisError) {
        let peak = samples.reduce(Float(0)) { max($0, abs($1)) }
        let gain = peak > 0 ? Self.checkPeak / peak : 0
        var random = SeededRandom(seed: StableHash.of(id))
        var bytes = [UInt8]()
        bytes.reserveCapacity(samples.count * 2)
        for sample in samples {
            let value = sample * gain + random.uniform(limit: Self.noiseFloorAmplitude)
            let integer = Int16(clamping: Int((value * 32767).rounded()))
            bytes.append(UInt8(truncatingIfNeeded: integer))
            bytes.append(UInt8(truncatingIfNeeded: integer >> 8))
        }
        let url = directory.appendingPathComponent("\(id).raw")
        do {
            try Data(bytes).write(to: url)
        } catch {
            throw .file(path: url.path, reason: "cannot write the recogniser's input: \(error.localizedDescription)")
        }
    }

    /// The ids (of files written by `writeInput` into `directory`) in which the phrase was spotted.
    func detections(ids: [String], in directory: URL, jobs: Int) throws(SynthesisError) -> Set<String> {
        guard !ids.isEmpty else { return [] }
        let dictionary = directory.appendingPathComponent("keyword.dict")
        let keywords = directory.appendingPathComponent("keyword.kws")
        try write(dictionaryLines.joined(separator: "\n") + "\n", to: dictionary)
        try write(keyphrases.map { phrase in
            let threshold = pow(thresholdPerPhone, Double(phrase.phoneCount))
            return phrase.words.joined(separator: " ") + " /" + String(format: "%.3e", threshold) + "/"
        }.joined(separator: "\n") + "\n", to: keywords)

        // At least `jobs` processes, and none with more clips than decode well within the subprocess timeout.
        let parts = max(1, min(ids.count, max(jobs, (ids.count + Self.clipsPerProcess - 1) / Self.clipsPerProcess)))
        let results = ParallelFor.map(parts, threads: max(1, min(jobs, parts))) { part -> Result<Set<String>, SynthesisError> in
            let range = (ids.count * part / parts)..<(ids.count * (part + 1) / parts)
            return Result { () throws(SynthesisError) in
                try decode(Array(ids[range]), part: part, in: directory, dictionary: dictionary, keywords: keywords)
            }
        }
        var spotted = Set<String>()
        for result in results { spotted.formUnion(try result.get()) }
        return spotted
    }

    private func decode(_ ids: [String], part: Int, in directory: URL, dictionary: URL,
                        keywords: URL) throws(SynthesisError) -> Set<String> {
        let control = directory.appendingPathComponent("part\(part).ctl")
        let hypotheses = directory.appendingPathComponent("part\(part).hyp")
        let log = directory.appendingPathComponent("part\(part).log")
        try write(ids.joined(separator: "\n") + "\n", to: control)
        try subprocess.run(executable, [
            "-adcin", "yes", "-adchdr", "0", "-cepdir", directory.path, "-cepext", ".raw",
            "-ctl", control.path, "-dict", dictionary.path, "-kws", keywords.path,
            "-hyp", hypotheses.path, "-logfn", log.path,
        ])
        let text: String
        do {
            text = try String(contentsOf: hypotheses, encoding: .utf8)
        } catch {
            throw .programFailed(command: Self.executableName, reason: "no results in \(hypotheses.path) (see \(log.path))")
        }
        // Each line: "<words spotted> (<id> <score>)"; nothing before the parenthesis = not spotted.
        var spotted = Set<String>(), answered = Set<String>()
        for line in text.split(separator: "\n") {
            guard let open = line.lastIndex(of: "(") else { continue }
            guard let id = line[line.index(after: open)...].split(separator: " ").first.map(String.init) else { continue }
            answered.insert(id)
            if !line[..<open].trimmingCharacters(in: .whitespaces).isEmpty { spotted.insert(id) }
        }
        let unanswered = ids.filter { !answered.contains($0) }
        if !unanswered.isEmpty {
            logger.warning("pocketsphinx gave no result for \(unanswered.count) clip(s), e.g. \(unanswered[0]); counted as not recognised")
        }
        return spotted
    }

    private func write(_ text: String, to url: URL) throws(SynthesisError) {
        do {
            try Data(text.utf8).write(to: url)
        } catch {
            throw .file(path: url.path, reason: "cannot write: \(error.localizedDescription)")
        }
    }
}

func createDirectory(_ url: URL) throws(SynthesisError) {
    do {
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    } catch {
        throw .file(path: url.path, reason: "cannot create folder: \(error.localizedDescription)")
    }
}
