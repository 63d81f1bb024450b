import ArgumentParser
import Foundation
import HotwordTraining

extension RecognitionCheck: ExpressibleByArgument {}
extension EngineKind: ExpressibleByArgument {}

/// `hotword synthesize`: training clips of a wake phrase from every installed TTS voice.
struct SynthesizeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "synthesize",
        abstract: "Make training clips of a wake phrase with every installed text-to-speech voice.",
        discussion: """
            Every espeak-ng voice and variant (plus a few non-English accents), flite voice, \
            festival voice, and the neural voices of piper and the voice program once \
            scripts/install-voices.sh has installed them, speaks the phrase at random rate, pitch, level and surrounding silence. \
            Clips are 16 kHz mono 16-bit WAV in OUT/positive (and OUT/confusable, OUT/speech with \
            --negatives, OUT/sound-alike with --sound-alikes); file names start with the engine and voice. Clips a listener would not \
            recognise are dropped to OUT/dropped: silent ones, ones far shorter or longer than \
            the median for their text, and (with --check pocketsphinx) positives in which \
            pocketsphinx does not spot the phrase. OUT/manifest.jsonl lists every clip, kept or \
            dropped, with its settings. The same --seed gives the same clips.
            """)

    @Argument(help: "The wake phrase, e.g. \"hey susi\".")
    var phrase: String

    @Option(name: .customLong("out"), help: ArgumentHelp("Folder for the clips and manifest.jsonl.", valueName: "DIR"))
    var output: String

    @Flag(help: "Also make confusable phrases (\"hey sushi\", \"commuter\") and generic sentences as negatives.")
    var negatives = false

    @Option(name: .customLong("sound-alikes"), help: ArgumentHelp(
        "Also speak the N real words that sound most like the phrase's (\"carcass\", \"harvest\" for \"jarvis\"; from the CMU dictionary) as negatives, into OUT/sound-alike.",
        valueName: "N"))
    var soundAlikes = 0

    @Option(name: .customLong("max-clips"), help: ArgumentHelp("At most N clips of each kind (shared among engines).", valueName: "N"))
    var maxClips: Int?

    @Option(help: "Random seed: the same seed and options give the same clips.")
    var seed: UInt64 = 1

    @Option(help: "Recognition check of positive clips: pocketsphinx or none.")
    var check = RecognitionCheck.pocketsphinx

    @Option(help: "Worker threads: synthesis programs run at once.")
    var threads = ProcessInfo.processInfo.activeProcessorCount

    /// The name this option had before every command called it --threads.
    @Option(name: .customLong("jobs"), help: .hidden)
    var deprecatedJobs: Int?

    @Option(name: .customLong("engine"), help: ArgumentHelp("Use only this engine: espeak-ng, flite, festival, piper or voice-program (repeatable; default: all installed).", valueName: "NAME"))
    var engines: [EngineKind] = []

    @Option(name: .customLong("piper-voices"), help: ArgumentHelp(
        "A folder of piper voices, NAME.onnx with NAME.onnx.json (repeatable; default: \(NeuralVoices.defaultFolder.path)/voices, where scripts/install-voices.sh puts them).",
        valueName: "DIR"))
    var piperVoices: [String] = []

    @Option(name: .customLong("voice-program"), help: ArgumentHelp(
        "A program speaking more voices: PROGRAM --list prints NAME<TAB>LANGUAGE lines; PROGRAM --voice NAME --length-scale X --text-file FILE --out OUT.wav speaks (default: \(NeuralVoices.programName), where scripts/install-voices.sh puts it).",
        valueName: "PROGRAM"))
    var voiceProgram: String?

    func validate() throws {
        if let maxClips, maxClips < 1 { throw ValidationError("--max-clips must be at least 1, not \(maxClips).") }
        if threads < 1 { throw ValidationError("--threads must be at least 1, not \(threads).") }
    }

    func run() throws {
        var options = SynthesisOptions(phrase: phrase, outputDirectory: URL(fileURLWithPath: output))
        options.negatives = negatives
        options.soundAlikes = soundAlikes
        options.maximumClips = maxClips
        options.seed = seed
        options.check = check
        options.jobs = deprecatedJobs ?? threads
        options.engines = engines.isEmpty ? nil : Set(engines)
        if !piperVoices.isEmpty { options.piperVoices = piperVoices.map { URL(fileURLWithPath: $0) } }
        options.voiceProgram = voiceProgram.map { URL(fileURLWithPath: $0) }
        let report: SynthesisReport
        do {
            report = try Synthesizer(options: options).run(progress: Self.show)
        } catch {
            throw CommandFailure(error.description)
        }
        print(Self.summary(report, output: output))
    }

    private static let isTerminal = isatty(STDERR_FILENO) == 1

    @Sendable static func show(_ progress: SynthesisProgress) {
        switch progress {
        case .status(let text):
            FileHandle.standardError.write(Data((text + "\n").utf8))
        case .rendered(let done, let total):
            if isTerminal {
                FileHandle.standardError.write(Data("\r\u{1B}[2Krendered \(done)/\(total)\(done == total ? "\n" : "")".utf8))
            } else if done == total || done % max(1, total / 10) == 0 {
                FileHandle.standardError.write(Data("rendered \(done)/\(total)\n".utf8))
            }
        }
    }

    static func summary(_ report: SynthesisReport, output: String) -> String {
        var lines = ["\"\(report.phrase)\": \(report.entries.count) clips from \(report.voiceCount) voices in \(format(report.seconds, 1)) s"]
        lines.append("kind         made   kept  dropped")
        let kinds = report.tally(nil, by: { $0.kind.rawValue })
        for kind in ClipKind.allCases { if let tally = kinds.first(where: { $0.key == kind.rawValue }) { lines.append(row(tally, width: 10)) } }
        let groupings: [(String, (ManifestEntry) -> String)] = [
            ("engine", { $0.engine.rawValue }), ("voice", SynthesisReport.voiceFamily),
        ]
        for (title, key) in groupings {
            lines.append("positive clips by \(title):")
            for tally in report.tally(.positive, by: key) { lines.append(row(tally, width: 30)) }
        }
        // ~100 espeak-ng variants: only the ones dropped most often.
        let variants = report.tally(.positive, by: SynthesisReport.variant).filter { $0.key.hasPrefix("espeak-ng") && $0.dropped > 0 }
        if !variants.isEmpty {
            lines.append("positive clips by espeak-ng variant, the 10 dropped most often:")
            for tally in variants.sorted(by: { ($0.droppedShare, $1.key) > ($1.droppedShare, $0.key) }).prefix(10) {
                lines.append(row(tally, width: 30))
            }
        }
        lines.append("manifest: \((output as NSString).appendingPathComponent("manifest.jsonl"))")
        return lines.joined(separator: "\n")
    }

    /// "key  made  kept  dropped (share): reasons"
    private static func row(_ tally: SynthesisReport.Tally, width: Int) -> String {
        let reasons = tally.reasons.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map { "\($0.key) \($0.value)" }
        let name = tally.key.padding(toLength: max(width, tally.key.count), withPad: " ", startingAt: 0)
        let made = String(tally.total).leftPadded(6), kept = String(tally.total - tally.dropped).leftPadded(6)
        return "  \(name) \(made) \(kept) \(String(tally.dropped).leftPadded(6)) (\(format(tally.droppedShare * 100, 1)) %)"
            + (reasons.isEmpty ? "" : ": " + reasons.joined(separator: ", "))
    }
}

private extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}
