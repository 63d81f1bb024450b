import Foundation
import HotwordChildProcess
import HotwordSpotting
import Logging

/// "Would a listener recognise the phrase in this clip?", asked of pocketsphinx: keyword spotting
/// (`pocketsphinx_batch -kws`) by `SpottingRule`'s pronunciations, threshold and copy of the
/// audio, without its least duration per phone: a synthetic clip said fast is still the phrase,
/// and `pocketsphinx_batch` does not report how long each spotting lasted. The second stage after
/// a detection is `PhraseSpotter`, with the whole rule.
///
/// The command-line program is used (not libpocketsphinx) so training does not depend on the
/// assistant's speech module; one process decodes a whole batch of clips, loading the model once.
public struct KeywordCheck: Sendable {
    public static let executableName = "pocketsphinx_batch"
    public static let defaultThresholdPerPhone = SpottingRule.defaultThresholdPerPhone

    let executable: URL
    let subprocess: Subprocess
    let rule: SpottingRule
    private let logger = Logger(label: "hotword.synthesis")

    /// The most clips one pocketsphinx process decodes (a few seconds each: well within its timeout).
    static let clipsPerProcess = 200

    /// A check for `phrase`: pronunciations from `dictionary` (the CMU dictionary) and espeak-ng,
    /// programs from `searchPath` (PATH by default).
    public init(phrase: String, searchPath: String? = nil, dictionary: URL? = Pronouncer.defaultDictionary,
                thresholdPerPhone: Double = defaultThresholdPerPhone) throws(SynthesisError) {
        guard !Phrase.words(of: phrase).isEmpty else { throw .emptyPhrase(phrase) }
        let subprocess = Subprocess(searchPath: searchPath)
        guard let executable = subprocess.locate(Self.executableName) else {
            throw .recognizerMissing(executable: Self.executableName, package: "pocketsphinx")
        }
        let pronouncer = Pronouncer(dictionary: dictionary, searchPath: searchPath)
        do {
            rule = try SpottingRule(phrase: phrase, pronouncer: pronouncer, thresholdPerPhone: thresholdPerPhone,
                                    minimumSecondsPerPhone: 0)
        } catch {
            throw .pronunciation(error)
        }
        self.executable = executable
        self.subprocess = subprocess
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

    /// Writes the copy of a clip that pocketsphinx decodes: `id`.raw, 16-bit little-endian PCM.
    func writeInput(_ samples: [Float], id: String, in directory: URL) throws(SynthesisError) {
        var bytes = [UInt8]()
        bytes.reserveCapacity(samples.count * 2)
        for integer in SpottingRule.decodedCopy(of: samples) {
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
        try write(rule.dictionaryFile, to: dictionary)
        try write(rule.keyphraseFile, to: keywords)

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
        try SynthesisError.reporting { () throws(ProgramFailure) in
            try subprocess.run(executable, [
                "-adcin", "yes", "-adchdr", "0", "-cepdir", directory.path, "-cepext", ".raw",
                "-ctl", control.path, "-dict", dictionary.path, "-kws", keywords.path,
                "-hyp", hypotheses.path, "-logfn", log.path,
            ])
        }
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
