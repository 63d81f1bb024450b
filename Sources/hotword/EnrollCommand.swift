import ArgumentParser
import Foundation
import HotwordCore
import HotwordData
import HotwordModels
import HotwordTraining
import Logging
import Synchronization

/// `hotword enroll`: a personal wake-word model from a few takes of the user's own voice.
struct EnrollCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enroll",
        abstract: "Make a personal wake-word model from a few recordings of your own voice.",
        discussion: """
            Records --samples takes of the wake word from the microphone (or checks --files), \
            rejecting takes that are too quiet, noisy, clipped, too short or long, or unlike your \
            other takes. Takes are kept in --dir, so running the command again adds more; --samples 0 \
            trains again from the saved takes. Every installed text-to-speech voice then says the \
            phrase, confusable phrases and everyday sentences (kept in --dir and reused); a model is \
            trained on your takes (weighted up, heavily augmented) and the synthetic clips, its \
            threshold is tuned on a held-out take and held-out synthetic speech, and it is written to \
            --out. Everything runs offline; see docs/training.md for what to expect.
            """)

    @Option(help: "The wake word, as it should be reported (e.g. \"hey computer\").")
    var keyword: String

    @Option(help: ArgumentHelp("Takes to record from the microphone now (default 5; at least 3 in all).", valueName: "N"))
    var samples: Int?

    @Option(help: "The ALSA capture device; `hotword devices` lists them.")
    var device = "default"

    @Option(parsing: .upToNextOption, help: ArgumentHelp("Use these recordings of the wake word instead of the microphone.", valueName: "WAV"))
    var files: [String] = []

    @Option(name: .customLong("negatives"), help: ArgumentHelp("Folder of your own audio without the wake word, e.g. saved false alarms (repeatable), or a fetched corpus's name; default: every fetched corpus's speech, see --data-dir.", valueName: "DIR"))
    var negatives: [String] = []

    @Option(name: .customLong("noise"), help: ArgumentHelp("Folder of background noise to train with (repeatable), or a fetched corpus's name; default: every fetched corpus's.", valueName: "DIR"))
    var noise: [String] = []

    @OptionGroup var fetched: FetchedCorporaOptions

    @Option(help: ArgumentHelp("Where takes and synthetic clips are kept. (default: ~/.local/share/hotword/enroll/<keyword>)", valueName: "DIR"))
    var dir: String?

    @Option(name: .customLong("out"), help: ArgumentHelp("Where to write the model. (default: <keyword>.hwks)", valueName: "MODEL"))
    var output: String?

    @Flag(help: "Smaller and faster: fewer synthetic clips, a narrower network, fewer epochs.")
    var quick = false

    @Flag(help: "Only record (or import) takes; train later with --samples 0.")
    var recordOnly = false

    @Option(help: ArgumentHelp("Synthetic clips of each kind: the phrase, confusable phrases, sentences. (default: 400; --quick 150)", valueName: "N"))
    var synthetic: Int?

    @Option(name: .customLong("engine"), help: ArgumentHelp("Text-to-speech engine for synthetic clips: espeak-ng, flite or festival (repeatable; default: all installed).", valueName: "NAME"))
    var engines: [EngineKind] = []

    @Option(help: "Most training epochs. (default: 12; --quick 6)")
    var epochs: Int?

    @Option(help: "Epochs without a better validation score before training stops. (default: 4; --quick 3)")
    var patience: Int?

    @Option(help: "Channels in every convolution (model size). (default: 32; --quick 24)")
    var channels: Int?

    @Option(help: "Rounds of hard-negative mining after training. (default: 1)")
    var hardNegativeRounds: Int?

    @Option(name: .customLong("target-fa-per-hour"), help: "False alarms per hour allowed on held-out synthetic speech at sensitivity 0.5.")
    var target: Double = 1

    @Option(help: "Random seed: the same seed, takes and --threads give the same model.")
    var seed: UInt64 = 1

    @Option(help: "Worker threads.")
    var threads = ProcessInfo.processInfo.activeProcessorCount

    @Flag(help: "Log what the audio device and synthesis do (otherwise only warnings).")
    var verbose = false

    func validate() throws {
        guard !keyword.trimmingCharacters(in: .whitespaces).isEmpty else { throw ValidationError("--keyword is empty: give the wake word, e.g. \"hey computer\"") }
        if let samples, !(0...100).contains(samples) { throw ValidationError("--samples must be 0 to 100, not \(samples)") }
        if samples != nil, !files.isEmpty { throw ValidationError("--samples records from the microphone; with --files the files are the takes") }
    }

    func run() throws {
        bootstrapLogging(verbose: verbose, quiet: .warning)
        let folder = EnrollmentFolder(root: dir.map { URL(fileURLWithPath: $0) } ?? EnrollmentFolder.defaultRoot(keyword: keyword))
        do {
            if files.isEmpty {
                try recordTakes(into: folder)
            } else {
                try importTakes(into: folder)
            }
            let total = try folder.takeFiles().count
            guard !recordOnly else {
                Self.say("\(total) takes in \(folder.takes.path); train with: hotword enroll --keyword \(shellQuoted(keyword)) --samples 0"
                    + (dir.map { " --dir \(shellQuoted($0))" } ?? ""))
                return
            }
            try train(folder)
        } catch let error as EnrollmentError {
            throw CommandFailure(error.description)
        }
    }

    private func recordTakes(into folder: EnrollmentFolder) throws {
        let count = samples ?? 5
        let existing = try folder.takeFiles().count
        guard existing + count >= EnrollmentOptions.minimumTakes else {
            throw CommandFailure("at least \(EnrollmentOptions.minimumTakes) takes are needed and \(folder.takes.path) holds \(existing): record at least \(EnrollmentOptions.minimumTakes - existing) (--samples)")
        }
        guard count > 0 else { return }
        if existing > 0 { Self.say("\(existing) takes are already saved in \(folder.takes.path); recording \(count) more.") }
        let recorder = TakeRecorder(keyword: keyword, device: device, folder: folder)
        let saved = try recorder.record(count: count, say: Self.say)
        if saved < count {
            throw CommandFailure("stopped: \(saved) new takes saved in \(folder.takes.path); run the command again to record more and train")
        }
    }

    private func importTakes(into folder: EnrollmentFolder) throws {
        let imported = try folder.importTakes(files.map { URL(fileURLWithPath: $0) }, rules: TakeRules())
        for file in imported {
            switch file.result {
            case .success(let take):
                Self.say("  \(file.source.path): \(format(take.speechSeconds, 2)) s of speech at \(format(Double(take.levelDecibels), 0)) dBFS, saved as \(file.saved!.lastPathComponent)")
            case .failure(let problem):
                Self.say("  \(file.source.path): not used: \(problem)")
            }
        }
    }

    private func train(_ folder: EnrollmentFolder) throws {
        let slug = EnrollmentFolder.slug(keyword)
        var options = EnrollmentOptions(keyword: keyword, folder: folder, output: output ?? "\(slug).\(ModelStore.fileExtension)", quick: quick)
        options.negativeFolders = fetched.folders(negatives, for: "--negatives", roles: CorpusRole.negatives)
        options.noiseFolders = fetched.folders(noise, for: "--noise", roles: [.noise])
        if let synthetic { options.syntheticClips = synthetic }
        options.engines = engines.isEmpty ? nil : Set(engines)
        options.targetFalseAlarmsPerHour = target
        if let epochs { options.training.epochs = epochs }
        if let patience { options.training.patience = patience }
        if let channels { options.training.channels = channels }
        if let hardNegativeRounds { options.training.hardNegativeRounds = hardNegativeRounds }
        options.training.seed = seed
        options.training.threads = threads
        options.command = invokedCommandLine

        let printer = EnrollmentProgressPrinter()
        let started = Date()
        let report: EnrollmentReport
        do {
            report = try Enrollment(options: options).run { printer.show($0) }
            printer.finish()
        } catch {
            printer.finish()
            throw error
        }
        let point = report.operatingPoint
        let model = report.model
        Self.say("wrote \(options.output): \"\(keyword)\" from \(report.trainedTakes.count) of your takes and \(report.syntheticKeywordClips) synthetic clips "
            + "(\(report.syntheticConfusableClips) confusable and \(report.syntheticSentenceClips) sentence clips as negatives\(report.syntheticReused ? ", reused" : "")); "
            + "\(model.parameterCount) parameters, \(format(model.multiplyAddsPerSecond / 1e6, 2)) M multiply-adds per second")
        Self.say("time: \(format(Date().timeIntervalSince(started) / 60, 1)) min (synthetic voices \(format(report.synthesisSeconds / 60, 1)), training \(format(report.trainingSeconds / 60, 1)))")
        Self.say("threshold \(format(Double(point.threshold), 4)) at sensitivity 0.5: \(point.falseAlarms) false alarms in \(format(report.tuningMinutes, 1)) min of held-out synthetic speech"
            + (report.heldOutTakes.isEmpty ? "; no take held out (record 5 or more to check the model)"
                : "; held-out takes heard: \(point.keywords - point.misses) of \(point.keywords)"))
        if point.misses > 0 {
            Self.say("\(point.misses == point.keywords ? "The held-out takes were" : "A held-out take was") missed at the default sensitivity: "
                + "record a few more takes (they are added), or use a higher --sensitivity.")
        }
        Self.say("use it: hotword run --model \(shellQuoted(options.output))   (try it first: hotword detect FILE.wav --model \(shellQuoted(options.output)))")
    }
}

extension EnrollCommand {
    /// Writes a line to standard output at once (unbuffered): prompts must show before the user speaks.
    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}

/// Prints enrollment progress on standard error from any thread: stage headings, synthesis
/// counts and the training progress bar.
private final class EnrollmentProgressPrinter: Sendable {
    private let bar = Mutex(ProgressBar())

    func show(_ progress: EnrollmentProgress) {
        bar.withLock { bar in
            switch progress {
            case .stage(let name): bar.show(.status("== \(name)"))
            case .synthesis(let event): SynthesizeCommand.show(event)
            case .training(let event): bar.show(event)
            }
        }
    }

    func finish() {
        bar.withLock { $0.finishLine() }
    }
}
