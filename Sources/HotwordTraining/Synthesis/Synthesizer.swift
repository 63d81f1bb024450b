import Foundation
import HotwordAudio
import HotwordChildProcess
import HotwordSpotting
import Logging
import Synchronization

/// What `Synthesizer.run` reports while it works.
public enum SynthesisProgress: Sendable {
    case status(String)
    case rendered(done: Int, total: Int)
}

/// Makes training clips of a wake phrase with every installed text-to-speech voice, and
/// optionally confusable phrases and generic sentences as negatives.
///
/// Each clip: the engine's audio at 16 kHz with its own leading and trailing silence trimmed,
/// scaled to a random peak level, with random silence before and after, written as 16-bit mono
/// WAV under `<out>/<kind>/`. Quality rules (`QualityRules`) drop clips a listener would not
/// recognise; dropped clips go to `<out>/dropped/<kind>/` for listening. Positives are made and
/// checked first; negatives are then spoken by the voices of the kept positives
/// (`SynthesisPlan`). `manifest.jsonl` lists every clip in plan order, kept or dropped, with its
/// settings. The same options and seed give the same files
/// and manifest; a rerun replaces the clips of the previous run it lists and nothing else.
public struct Synthesizer: Sendable {
    public let options: SynthesisOptions
    private let logger = Logger(label: "hotword.synthesis")

    public init(options: SynthesisOptions) {
        self.options = options
    }

    @discardableResult
    public func run(progress: @escaping @Sendable (SynthesisProgress) -> Void = { _ in }) throws(SynthesisError) -> SynthesisReport {
        let started = Date()
        try options.validate()
        let phrase = Phrase.normalised(options.phrase)
        let output = options.outputDirectory
        try prepareOutput(output)
        let subprocess = Subprocess(searchPath: options.searchPath)

        let engines = try installedEngines(subprocess)
        var voices: [Voice] = []
        for engine in engines {
            do {
                let found = try engine.voices()
                if found.isEmpty { logger.warning("\(engine.kind.rawValue) lists no voices; not used") }
                voices += found
            } catch {
                logger.warning("cannot list the voices of \(engine.kind.rawValue), not using it: \(error)")
            }
        }
        guard !voices.isEmpty else { throw .noVoices(engines: engines.map(\.kind.rawValue)) }
        progress(.status("\(voices.count) voices: " + EngineKind.allCases.compactMap { kind in
            let count = voices.filter { $0.engine == kind }.count
            return count > 0 ? "\(kind.rawValue) \(count)" : nil
        }.joined(separator: ", ")))

        let pronouncer = Pronouncer(dictionary: options.dictionary, searchPath: options.searchPath)
        let check = try keywordCheck(phrase: phrase, pronouncer: pronouncer)
        var confusables: [Confusable] = []
        var sentences: [String] = []
        let generator = ConfusableGenerator(maximumCount: 40, maximumDistance: 0.75,
                                            pronouncer: pronouncer.espeak == nil ? nil : pronouncer)
        if options.negatives {
            confusables = try generator.confusables(for: phrase)
            sentences = NegativeSentences.excluding(phrase)
            progress(.status("\(confusables.count) confusable phrases: " + confusables.map(\.text).joined(separator: ", ")))
        }
        let soundAlikes = try soundAlikes(of: phrase, pronouncer: pronouncer, generator: generator)
        if !soundAlikes.isEmpty {
            progress(.status("\(soundAlikes.count) sound-alike words: " + soundAlikes.map(\.text).joined(separator: ", ")))
        }

        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("hotword-synthesize-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        try createDirectory(scratch)
        try createDirectory(ClipRenderer.checkDirectory(in: scratch))
        let renderer = ClipRenderer(outputDirectory: output, scratch: scratch, check: check,
                                    engines: Dictionary(uniqueKeysWithValues: engines.map { ($0.kind, $0) }))

        let positiveJobs = SynthesisPlan.positives(options: options, voices: voices, phrase: phrase)
        var entries = try render(positiveJobs, with: renderer, progress: progress)
        if let check {
            let candidates = entries.indices.filter { entries[$0].kept }
            progress(.status("checking \(candidates.count) positive clips with pocketsphinx"))
            let spotted = try check.detections(ids: candidates.map(ClipRenderer.checkID), in: renderer.checkDirectory, jobs: options.jobs)
            for index in candidates where !spotted.contains(ClipRenderer.checkID(index)) {
                entries[index].kept = false
                entries[index].reason = QualityRules.notRecognised
            }
        }
        if options.negatives || !soundAlikes.isEmpty {
            var pool = positiveJobs.indices.filter { entries[$0].kept }.map { positiveJobs[$0].voice }
            if pool.isEmpty {
                logger.warning("no positive clip was kept; negatives use every voice")
                pool = positiveJobs.map(\.voice)
            }
            let negativeJobs = SynthesisPlan.negatives(options: options, voicePool: pool,
                                                       confusables: confusables, soundAlikes: soundAlikes, sentences: sentences)
            entries += try render(negativeJobs, with: renderer, progress: progress)
        }
        try moveDropped(&entries)
        let previous = previousFiles(in: output)
        try Manifest.write(entries, to: output.appendingPathComponent(Manifest.fileName))
        removeStale(previous, keeping: Set(entries.compactMap(\.file)), in: output)
        return SynthesisReport(phrase: phrase, entries: entries, confusables: confusables + soundAlikes,
                               voiceCount: voices.count, seconds: Date().timeIntervalSince(started))
    }

    /// Renders the jobs in parallel and applies the duration rule within them.
    private func render(_ jobs: [ClipJob], with renderer: ClipRenderer,
                        progress: @escaping @Sendable (SynthesisProgress) -> Void) throws(SynthesisError) -> [ManifestEntry] {
        guard let kind = jobs.first?.kind else { return [] }
        progress(.status("rendering \(jobs.count) \(kind == .positive ? "positive" : "negative") clips with \(options.jobs) jobs"))
        for kind in Set(jobs.map(\.kind)) { try createDirectory(options.outputDirectory.appendingPathComponent(kind.rawValue)) }
        let done = ProgressCounter(total: jobs.count, progress: progress)
        var entries = ParallelFor.map(jobs.count, threads: options.jobs) { index in
            defer { done.increment() }
            return renderer.render(jobs[index], id: index)
        }
        QualityRules.applyDuration(to: &entries)
        return entries
    }

    private func installedEngines(_ subprocess: Subprocess) throws(SynthesisError) -> [any SpeechEngine] {
        let wanted = options.engines ?? Set(EngineKind.allCases)
        var engines: [any SpeechEngine] = []
        for kind in EngineKind.allCases where wanted.contains(kind) {
            let engine: (any SpeechEngine)?
            switch kind {
            case .espeakNG:
                engine = subprocess.locate(kind.executable).map { EspeakEngine(executable: $0, subprocess: subprocess) }
            case .flite:
                engine = subprocess.locate(kind.executable).map { FliteEngine(executable: $0, subprocess: subprocess) }
            case .festival:
                if let text2wave = subprocess.locate(kind.executable), let festival = subprocess.locate("festival") {
                    engine = FestivalEngine(text2wave: text2wave, festival: festival, subprocess: subprocess)
                } else {
                    engine = nil
                }
            case .piper:
                engine = try piperEngine(subprocess)
            case .voiceProgram:
                engine = (options.voiceProgram ?? NeuralVoices.locate(kind.executable, subprocess, defaultSearchPath: options.searchPath == nil))
                    .map { VoiceProgramEngine(executable: $0, subprocess: subprocess) }
            }
            if let engine {
                engines.append(engine)
            } else if options.engines != nil {
                throw .engineMissing(engine: kind.rawValue, executable: kind.executable)
            }
        }
        guard !engines.isEmpty else {
            throw .noEngine(looked: EngineKind.allCases.map(\.executable), searchPath: subprocess.searchPath)
        }
        return engines
    }

    /// piper, when its program and at least one voice are installed; asked for by name, a piper
    /// without voices is named with the folders looked in.
    private func piperEngine(_ subprocess: Subprocess) throws(SynthesisError) -> PiperEngine? {
        guard let executable = NeuralVoices.locate(EngineKind.piper.executable, subprocess, defaultSearchPath: options.searchPath == nil)
        else { return nil }
        let engine = try PiperEngine(executable: executable, voiceFolders: options.piperVoices, subprocess: subprocess)
        if try engine.voices().isEmpty {
            guard options.engines == nil else {
                throw .noPiperVoices(folders: options.piperVoices.map(\.path))
            }
            return nil
        }
        return engine
    }

    /// `options.soundAlikes` real words from the pronouncing dictionary that sound like the
    /// phrase's words, homophones by `generator`'s reading left out; an error if some are asked
    /// for and there is no dictionary to take them from.
    private func soundAlikes(of phrase: String, pronouncer: Pronouncer,
                             generator: ConfusableGenerator) throws(SynthesisError) -> [Confusable] {
        guard options.soundAlikes > 0 else { return [] }
        let words = Phrase.words(of: phrase)
        let dictionary: [(word: String, phones: [String])], phrasePhones: [[[String]]]
        do {
            dictionary = try pronouncer.dictionaryWords()
            phrasePhones = try pronouncer.pronunciations(of: words)
        } catch {
            throw .pronunciation(error)
        }
        guard !dictionary.isEmpty else {
            throw .invalidOption(name: "--sound-alikes", value: String(options.soundAlikes),
                                 expected: "a pronouncing dictionary to take the words from (install pocketsphinx-en-us for "
                                     + "\(Pronouncer.defaultDictionary.path))")
        }
        return try generator.withoutHomophones(SoundAlikes.nearest(phrase: words, phrasePhones: phrasePhones, dictionary: dictionary),
                                               of: phrase, count: options.soundAlikes)
    }

    /// The pocketsphinx check, or nil with `--check none`. The phrase's words must be
    /// pronounceable either way (when espeak-ng is there to tell).
    private func keywordCheck(phrase: String, pronouncer: Pronouncer) throws(SynthesisError) -> KeywordCheck? {
        guard options.check == .pocketsphinx else {
            if pronouncer.espeak != nil {
                do {
                    _ = try pronouncer.pronunciations(of: Phrase.words(of: phrase))
                } catch {
                    throw .pronunciation(error)
                }
            }
            return nil
        }
        return try KeywordCheck(phrase: phrase, searchPath: options.searchPath, dictionary: options.dictionary,
                                thresholdPerPhone: options.thresholdPerPhone)
    }

    private func prepareOutput(_ url: URL) throws(SynthesisError) {
        let probe = url.appendingPathComponent(".hotword-write-test-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            try Data().write(to: probe)
            try FileManager.default.removeItem(at: probe)
        } catch {
            throw .outputNotWritable(path: url.path, reason: error.localizedDescription)
        }
    }

    /// Moves the files of dropped clips from `<kind>/` to `dropped/<kind>/`.
    private func moveDropped(_ entries: inout [ManifestEntry]) throws(SynthesisError) {
        for index in entries.indices where !entries[index].kept {
            guard let file = entries[index].file else { continue }
            let destination = "dropped/" + file
            let target = options.outputDirectory.appendingPathComponent(destination)
            try createDirectory(target.deletingLastPathComponent())
            if rename(options.outputDirectory.appendingPathComponent(file).path, target.path) != 0 {
                throw .file(path: target.path, reason: "cannot move the dropped clip here: \(String(cString: strerror(errno)))")
            }
            entries[index].file = destination
        }
    }

    /// The files the manifest of an earlier run lists (none if there is no readable manifest).
    private func previousFiles(in output: URL) -> [String] {
        let url = output.appendingPathComponent(Manifest.fileName)
        guard FileManager.default.fileExists(atPath: url.path) else { return [] }
        do {
            return try Manifest.read(url).compactMap(\.file)
        } catch {
            logger.warning("not cleaning up after the previous run: \(error)")
            return []
        }
    }

    /// Removes clips an earlier run made that this run did not make again.
    private func removeStale(_ previous: [String], keeping current: Set<String>, in output: URL) {
        for file in previous where !current.contains(file) && !file.contains("..") {
            try? FileManager.default.removeItem(at: output.appendingPathComponent(file))
        }
    }
}

/// Counts finished clips and reports every percent.
private final class ProgressCounter: Sendable {
    private let total: Int
    private let progress: @Sendable (SynthesisProgress) -> Void
    private let done = Atomic(0)

    init(total: Int, progress: @escaping @Sendable (SynthesisProgress) -> Void) {
        self.total = total
        self.progress = progress
    }

    func increment() {
        let count = done.wrappingAdd(1, ordering: .relaxed).newValue
        if count == total || count % max(1, total / 100) == 0 { progress(.rendered(done: count, total: total)) }
    }
}
