import ArgumentParser
import Foundation
import HotwordAudio
import HotwordCore
import HotwordData
import HotwordJSON
import HotwordModels
import HotwordTraining

/// Options shared by `eval` and `tune`: which data makes the test stream.
struct EvaluationDataOptions: ParsableArguments {
    @Option(name: .customLong("positives"), help: ArgumentHelp("Folder of keyword clips (repeatable).", valueName: "DIR"))
    var positives: [String] = []

    @Option(name: .customLong("negatives"), help: ArgumentHelp("Folder of speech without the keyword (repeatable; its --part is used), or a fetched corpus's name; default, without --source and --noise-alone: every fetched corpus's, see --data-dir.", valueName: "DIR"))
    var negatives: [String] = []

    @Option(name: .customLong("source"), help: ArgumentHelp("A held-out corpus of speech without the keyword, one no training example came from (repeatable): used whole, every part, with false alarms per hour reported for it alone. A folder or a pattern (DIR/prefix*).", valueName: "DIR"))
    var sources: [String] = []

    @Option(name: .customLong("noise-alone"), help: ArgumentHelp("Held-out noise or music without speech, heard alone after the speech at the speech level ± 10 dB (repeatable): does the model wake with nobody talking? Reported per folder or pattern.", valueName: "DIR"))
    var noiseAlone: [String] = []

    @Option(name: .customLong("noise"), help: ArgumentHelp("Folder of background noise (repeatable), or a fetched corpus's name; default: every fetched corpus's.", valueName: "DIR"))
    var noise: [String] = []

    @OptionGroup var fetched: FetchedCorporaOptions

    @Option(help: "Signal-to-noise ratio of the background noise, dB.")
    var snr: Float = 10

    @Option(help: "Which parts of the train/validation/test split of --positives and --negatives to use: train, validation, test, all, or several joined by commas (validation,test); --positives-part sets the positives' apart.")
    var part: String = "test"

    @Option(name: .customLong("positives-part"), help: ArgumentHelp("Which parts of --positives to use, as --part (default: --part's): e.g. validation, keeping the test part's people for judging.", valueName: "PART"))
    var positivesPart: String?

    @Option(help: "Seed of the stream's order and pauses.")
    var seed: UInt64 = 1

    @Option(help: ArgumentHelp("Seconds from the end of the speech before each keyword to the start of the keyword's, drawn per keyword from MIN-MAX (e.g. 0.2-0.8): wake words said straight after other talk. Default: the speech's own pause and 0.5–1.5 s more.", valueName: "MIN-MAX"))
    var keywordPause: String?

    @Option(help: "Times every clip is heard, each pass in its own order, pauses and stretch of noise; figures pool all passes (steadier: where a clip lands in the noise moves them a lot).")
    var passes = 1

    /// Fills in what the command line leaves out from the fetched corpora: negatives when no
    /// audio without the keyword is given at all, and noise.
    mutating func useFetchedCorpora() {
        if sources.isEmpty && noiseAlone.isEmpty {
            negatives = fetched.folders(negatives, for: "--negatives", roles: CorpusRole.negatives)
        }
        noise = fetched.folders(noise, for: "--noise", roles: [.noise])
    }

    /// `--keyword-pause` as a range of seconds.
    func keywordPauseRange() throws -> ClosedRange<Double>? {
        guard let keywordPause else { return nil }
        let bounds = keywordPause.split(separator: "-", omittingEmptySubsequences: false).map { Double($0) }
        guard bounds.count == 2, let low = bounds[0], let high = bounds[1], low >= 0, low <= high, high <= 10 else {
            throw ValidationError("--keyword-pause '\(keywordPause)': expected MIN-MAX in seconds, 0 ≤ MIN ≤ MAX ≤ 10 (e.g. 0.2-0.8)")
        }
        return low...high
    }

    /// The stream of --negatives, --source and --noise-alone with the --positives spread through it
    /// (`withKeywords`), noise at --snr under everything.
    func stream(withKeywords: Bool = true) throws -> EvaluationStream {
        guard passes >= 1 else { throw ValidationError("--passes \(passes): expected at least 1") }
        let negativeParts = try Self.parts(part, option: "--part")
        // Every folder is a source of its own, so false alarms can be told per corpus.
        var negativeClips: [[Float]] = [], negativeNames: [String] = [], negativeSources: [String] = []
        // --negatives are split; a held-out --source is heard whole.
        let speech: [(folder: String, parts: Set<DataSplit.Part>?)] = negatives.map { ($0, negativeParts) } + sources.map { ($0, nil) }
        for (folder, parts) in speech {
            let bank = try load([folder], parts: parts)
            negativeClips += bank.clips
            negativeNames += bank.paths
            negativeSources += bank.paths.map { _ in folder }
        }
        let alone = try noiseAlone.map { folder in
            let bank = try load([folder])
            return EvaluationStream.NoiseAlone(source: folder, clips: bank.clips, names: bank.paths)
        }
        guard !negativeClips.isEmpty || alone.contains(where: { !$0.clips.isEmpty }) else {
            throw CommandFailure("no negative audio in \((negatives + sources + noiseAlone).joined(separator: ", ")) (part \(part) of --negatives); expected --negatives, --source or --noise-alone folders with audio files")
        }
        let positiveBank = withKeywords ? try positiveClips() : nil
        return EvaluationStream(positives: positiveBank?.clips ?? [], positiveNames: positiveBank?.paths ?? [], negatives: negativeClips,
                                negativeNames: negativeNames, negativeSources: negativeSources, noise: try load(noise).clips,
                                snr: noise.isEmpty ? nil : snr, noiseAlone: alone, keywordPause: try keywordPauseRange(),
                                seed: seed, passes: passes)
    }

    /// The keyword clips alone, each between pauses, under the noise at `snr` dB over their speech.
    func keywordStream(snr: Float) throws -> EvaluationStream {
        let positiveBank = try positiveClips()
        return EvaluationStream(positives: positiveBank.clips, positiveNames: positiveBank.paths, negatives: [],
                                noise: try load(noise).clips, snr: snr, seed: seed, passes: passes)
    }

    /// The keyword clips heard as the start of a stream each, `lead` seconds before their speech,
    /// in the same noise as the stream.
    func streamStarts(lead: Double) throws -> StreamStarts {
        let positiveBank = try positiveClips()
        return StreamStarts(positives: positiveBank.clips, names: positiveBank.paths, lead: lead, noise: try load(noise).clips,
                            snr: noise.isEmpty ? nil : snr, seed: seed, passes: passes)
    }

    /// The --positives clips of their part.
    private func positiveClips() throws -> AudioBank {
        try load(positives, parts: try positivesPart.map { try Self.parts($0, option: "--positives-part") } ?? Self.parts(part, option: "--part"))
    }

    private func load(_ folders: [String], parts: Set<DataSplit.Part>? = nil) throws -> AudioBank {
        do {
            let corpus = try AudioCorpus(folders: folders, split: DataSplit())
            let paths = corpus.clips.filter { parts?.contains($0.split) ?? true }.map(\.path)
            return AudioBank.load(paths) { printNote("skipped \($0)") }
        } catch {
            throw CommandFailure("\(error)")
        }
    }

    /// `list` (train, validation, test, all, or several joined by commas) as parts of a split.
    private static func parts(_ list: String, option: String) throws -> Set<DataSplit.Part> {
        var parts = Set<DataSplit.Part>()
        for name in list.split(separator: ",", omittingEmptySubsequences: false).map(String.init) {
            if name == "all" {
                parts.formUnion(DataSplit.Part.allCases)
            } else if let one = DataSplit.Part(rawValue: name) {
                parts.insert(one)
            } else {
                throw ValidationError("\(option) '\(list)': expected train, validation, test or all, or several joined by commas")
            }
        }
        return parts
    }
}

/// `hotword eval`: miss rate and false alarms per hour across sensitivities.
struct EvalCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "eval",
        abstract: "Measure a model's miss rate and false alarms per hour.",
        discussion: """
            Builds one long stream: the keyword clips spread evenly through the negative speech with \
            pauses, every clip at -26 dBFS speech level, background noise at --snr over everything. \
            Runs the streaming detector across sensitivities 0…1 and prints a table; reads the miss \
            rate at ≤ 1 and ≤ 0.1 false alarms per hour off a sweep of thresholds up to 0.999994 \
            (with the threshold and sensitivity that reach it); writes the DET curve as SVG with --plot \
            (--json: the sweep of thresholds as "curve"). \
            Without --positives it measures false alarms only.
            """)

    @Option(help: "The model file or bundled model name.")
    var model: String

    @OptionGroup var data: EvaluationDataOptions

    @Option(help: ArgumentHelp("Write the DET curve here (SVG).", valueName: "SVG"))
    var plot: String?

    @Flag(help: "Print JSON instead of a table.")
    var json = false

    @Flag(help: "List the negative clips behind each false alarm at the default sensitivity.")
    var listFalseAlarms = false

    @Flag(help: "List the keyword clips the model missed at the default sensitivity.")
    var listMisses = false

    @Option(name: .customLong("lead"), help: ArgumentHelp("Also hear every keyword clip as the start of a stream of its own, SECONDS of silence before it (0: the clip from its first sample, as `hotword detect clip.wav` hears it), in the same noise from the first sample, and report the share missed at the default sensitivity by the network alone (repeatable: --lead 0 --lead 2).", valueName: "SECONDS"))
    var leads: [Double] = []

    @OptionGroup var phraseCheck: PhraseCheckOptions

    @OptionGroup var modelCheck: ModelCheckOptions

    func run() throws {
        if let lead = leads.first(where: { !(0...10).contains($0) }) { throw ValidationError("--lead \(lead): expected seconds from 0 to 10") }
        let keywordModel = try DetectorOptions.loadModel(model)
        // The second stage is settled before hours of audio are read.
        let secondModel = try modelCheck.check(for: keywordModel.keywords[0])
        let checkThreshold = phraseCheck.phrases(for: [keywordModel])[keywordModel.keywords[0]]
        if secondModel != nil && checkThreshold != nil { throw ValidationError("--check-model and the phrase check: one second stage at a time (--no-check-phrase)") }
        var data = data
        data.useFetchedCorpora()
        let stream = try data.stream()
        let check: (any DetectionCheck)? = try secondModel ?? checkThreshold.map { threshold in
            try PhraseCheckOptions.spotter(phrase: keywordModel.keywords[0], thresholdPerPhone: threshold)
        }
        let sensitivities = stride(from: 0, through: 20, by: 1).map { Float($0) / 20 }
        // A gated pair (a cascade) runs once ungated; its gated scores follow from those exactly
        // (`CompanionGate.gatedScores`), so both are reported from one run.
        let ungatedTrace = try ScoreTrace(keywordModel.ungated, stream: stream)
        let gate = keywordModel.companion?.gate
        let (trace, openShare) = gate.map { ungatedTrace.gated(by: $0, weight: keywordModel.companion!.weight) } ?? (ungatedTrace, 1)
        let ungatedAtDefault = try gate.map { _ in
            try Evaluation.sweep(keywordModel, over: ungatedTrace, sensitivities: [keywordModel.detection.sensitivity], check: check)[0]
        }
        let points = try Evaluation.sweep(keywordModel, over: trace, sensitivities: sensitivities, check: check)
        // The limits are a property of the model, not of its sensitivity map: read them off the
        // whole DET curve, thresholds up to 0.999994, beyond the map's range.
        let curve = try Evaluation.thresholdSweep(keywordModel, over: trace, thresholds: Tuning.thresholds(checked: check != nil), check: check)
        let atOne = Evaluation.bestPoint(atMost: 1, in: curve), atTenth = Evaluation.bestPoint(atMost: 0.1, in: curve)
        let tuned = points.first(where: { $0.sensitivity == keywordModel.detection.sensitivity })
        let bySource = tuned.map { Evaluation.bySource($0, in: stream) } ?? []
        // Where there are several sources, each row also names its worst one's rate: the figure a
        // threshold is chosen by.
        func worstSource(_ point: OperatingPoint) -> Double? {
            stream.sourceNames.count > 1 ? Evaluation.bySource(point, in: stream).map(\.perHour).max() : nil
        }
        let worstPerHour = points.map(worstSource)
        let starts = try (data.positives.isEmpty ? [] : leads).map { lead in
            let starts = try data.streamStarts(lead: lead)
            return (lead: lead, streams: starts.streams.count, missed: try starts.missed(by: keywordModel))
        }
        func share(_ start: (lead: Double, streams: Int, missed: [Int])) -> Double { start.streams == 0 ? 0 : Double(start.missed.count) / Double(start.streams) }
        var cascade: (gate: CompanionGate, gated: OperatingPoint, ungated: OperatingPoint)?
        if let gate, let ungated = ungatedAtDefault, let tuned { cascade = (gate, tuned, ungated) }
        if json {
            let sourceRows = bySource.map {
                "{\"source\":\(JSONText.quoted($0.source)),\"hours\":\($0.hours),\"false_alarms\":\($0.falseAlarms),\"false_alarms_per_hour\":\($0.perHour)}"
            }
            let rows = zip(points, worstPerHour).map { point, worst in
                "{\"sensitivity\":\(point.sensitivity),\"threshold\":\(point.threshold),\"miss_rate\":\(point.missRate),\"false_alarms_per_hour\":\(point.falseAlarmsPerHour)"
                    + (worst.map { ",\"worst_source_false_alarms_per_hour\":\($0)" } ?? "") + "}"
            }
            let startRows = starts.map { start in
                "{\"lead_seconds\":\(start.lead),\"keywords\":\(start.streams),\"misses\":\(start.missed.count),\"miss_rate\":\(share(start))}"
            }
            var cascadeJSON = ""
            if let cascade {
                let fields: [String] = [
                    "\"gate_logit\":\(cascade.gate.logit)", "\"hold_seconds\":\(cascade.gate.holdSeconds)", "\"open_share\":\(openShare)",
                    "\"miss_rate_gated\":\(cascade.gated.missRate)", "\"miss_rate_ungated\":\(cascade.ungated.missRate)",
                    "\"false_alarms_per_hour_gated\":\(cascade.gated.falseAlarmsPerHour)",
                    "\"false_alarms_per_hour_ungated\":\(cascade.ungated.falseAlarmsPerHour)",
                ]
                cascadeJSON = ",\"cascade\":{\(fields.joined(separator: ","))}"
            }
            let curveRows = curve.map { point in
                "{\"threshold\":\(point.threshold),\"miss_rate\":\(point.missRate),\"false_alarms\":\(point.falseAlarms)"
                    + (worstSource(point).map { ",\"worst_source_false_alarms_per_hour\":\($0)" } ?? "") + "}"
            }
            print("{\"keywords\":\(stream.keywordRanges.count),\"negative_hours\":\(stream.negativeDuration / 3600),"
                + "\"miss_rate_at_1_fa_per_hour\":\(atOne.map { "\($0.missRate)" } ?? "null"),\"miss_rate_at_0.1_fa_per_hour\":\(atTenth.map { "\($0.missRate)" } ?? "null"),"
                + "\"points\":[\(rows.joined(separator: ","))],\"curve\":[\(curveRows.joined(separator: ","))],"
                + "\"sources_at_default\":[\(sourceRows.joined(separator: ","))],\"stream_starts\":[\(startRows.joined(separator: ","))]"
                + cascadeJSON + "}")
        } else {
            let clips = stream.keywordRanges.count / data.passes
            let heard = data.passes == 1 ? "" : clips > 0 ? " (\(clips) clips × \(data.passes) passes)" : " (\(data.passes) passes)"
            if let checkThreshold { print("second stage: pocketsphinx spotting \"\(keywordModel.keywords[0])\", \(checkThreshold) per phone") }
            if let secondModel, let path = modelCheck.model { print("second stage: \(path) scoring at least \(format(Double(secondModel.threshold), 4))") }
            print("\(keywordModel.keywords[0]): \(stream.keywordRanges.count) keywords\(heard) in \(format(stream.duration / 60, 1)) min of audio (\(format(stream.negativeDuration / 3600, 3)) h without the keyword)\(data.noise.isEmpty ? "" : ", noise at \(format(Double(data.snr), 0)) dB SNR")")
            print("sensitivity  threshold  miss rate  false alarms/h" + (worstPerHour.first! != nil ? "   worst source /h" : ""))
            for (point, worst) in zip(points, worstPerHour) {
                let pooled = "\(format(point.falseAlarmsPerHour, 2)) (\(point.falseAlarms))"
                print("\(format(Double(point.sensitivity), 2).padding(13))\(format(Double(point.threshold), 4).padding(11))\((format(point.missRate * 100, 1) + " %").padding(11))"
                      + (worst.map { pooled.padding(17) + format($0, 2) } ?? pooled))
            }
            func describe(_ point: OperatingPoint?) -> String {
                guard let point else { return "not reached" }
                return "\(format(point.missRate * 100, 1)) % (threshold \(format(Double(point.threshold), 6)), sensitivity \(format(Double(point.sensitivity), 2)), \(format(point.falseAlarmsPerHour, 2)) false alarms/h)"
            }
            print("miss rate at ≤ 1 false alarm/h:    \(describe(atOne))")
            print("miss rate at ≤ 0.1 false alarm/h:  \(describe(atTenth))")
            if bySource.count > 1, let tuned {
                print("false alarms by source at the default sensitivity (\(format(Double(tuned.sensitivity), 2))):")
                let width = bySource.map(\.source.count).max()! + 2
                for row in bySource {
                    print("  \(row.source.padding(width))\(format(row.hours, 3)) h  \(format(row.perHour, 2))/h (\(row.falseAlarms))")
                }
                let worst = bySource.max { $0.perHour < $1.perHour }!
                print("worst source: \(worst.source), \(format(worst.perHour, 2)) false alarms/h")
            }
            if let cascade {
                print("cascade: the companion heard while the first network's logit is at least \(format(Double(cascade.gate.logit), 1)) and \(format(Double(cascade.gate.holdSeconds), 2)) s after: open at \(format(openShare * 100, 1)) % of its outputs")
                print("  at the default, gated (as it runs): missed \(format(cascade.gated.missRate * 100, 1)) %, \(format(cascade.gated.falseAlarmsPerHour, 2)) false alarms/h (\(cascade.gated.falseAlarms))")
                print("  at the default, ungated:            missed \(format(cascade.ungated.missRate * 100, 1)) %, \(format(cascade.ungated.falseAlarmsPerHour, 2)) false alarms/h (\(cascade.ungated.falseAlarms))")
            }
            for start in starts {
                print("missed as the start of a stream, the clip \(format(start.lead, 2)) s in: \(format(share(start) * 100, 1)) % (\(start.missed.count) of \(start.streams), the network alone at the default sensitivity)")
            }
        }
        if let tuned {
            if listFalseAlarms {
                for time in tuned.falseAlarmTimes {
                    print("false alarm at \(format(time, 2)) s: \(Evaluation.source(of: time, in: stream))")
                }
            }
            if listMisses {
                for index in tuned.missedKeywords {
                    print("missed at \(format(Double(stream.keywordRanges[index].lowerBound) / Double(stream.sampleRate), 2)) s: \(stream.keywordNames[index])")
                }
            }
        }
        if let plot {
            let svg = DETPlot.svg(title: "\(keywordModel.keywords[0]) — DET curve", series: [
                .init(name: "thresholds", points: curve),
                .init(name: "sensitivities 0…1", points: points),
            ])
            do {
                try svg.write(toFile: plot, atomically: true, encoding: .utf8)
            } catch {
                throw CommandFailure("cannot write \(plot): \((error as NSError).localizedDescription)")
            }
        }
    }
}

extension String {
    func padding(_ width: Int) -> String { count >= width ? self + " " : self + String(repeating: " ", count: width - count) }
}
