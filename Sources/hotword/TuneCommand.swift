import ArgumentParser
import Foundation
import HotwordCore
import HotwordModels
import HotwordSpotting
import HotwordTraining

/// `hotword tune`: set the operating point for a target false-alarm rate.
struct TuneCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tune",
        abstract: "Choose the detection threshold that meets a false-alarm target and store it in the model.",
        discussion: """
            Measures false alarms per hour on the given data (as `hotword eval` does) across score \
            thresholds and writes the model back with sensitivity 0.5 at the lowest threshold that \
            meets --target-fa-per-hour, 0 at a tenth of the target and 1 at ten times it. \
            --check-phrase tunes the two stages together — the false alarms counted are those \
            pocketsphinx also spots the keyword around — and stores that the model's detections \
            are to pass that second stage wherever it runs, as a model trained from synthetic \
            voices alone should. --no-check-phrase tunes the network alone and stores that no \
            check is asked for; neither keeps what the model asked for, tuned on the network alone.

            --miss-budget spends misses on quiet: sensitivity 0.5 goes to the highest threshold \
            that misses at most that share of --positives' clips, where that is stricter than the \
            false-alarm target's. Give it people saying the word that the model never trained \
            on — the validation part of their folder (--positives-part validation) — and no \
            synthetic voices, whose scores say little of people's.

            --positives-snr hears the keyword clips in a stream of their own, under the noise at \
            that SNR over their speech, and the speech without them at --snr: people are missed in \
            louder noise than a model's false alarms need to be counted in, and noise that loud \
            would mask the speech that wakes it. --every-source holds the target on each \
            --negatives folder on its own too (counted), not only pooled: the default is set by \
            the source that wakes the model most.

            --gate-miss-budget makes a pair on two front ends a cascade: its companion on the \
            speech embedding (nine tenths of its CPU) runs only while the first network's logit \
            passes a gate, and --gate-hold seconds after. The threshold is tuned on the pair \
            ungated; then the highest gate is stored that misses at most that share more of the \
            keywords than the ungated pair at the threshold and counts no more false alarms \
            (tried from the most open up, stopping at the first that breaks it). Without it a \
            model's gate is kept as it was.
            """)

    @Option(help: "The model file to tune.")
    var model: String

    @OptionGroup var data: EvaluationDataOptions

    @Option(name: .customLong("target-fa-per-hour"), help: "False alarms per hour to allow at the default sensitivity.")
    var target: Double = 1

    @Option(name: .customLong("miss-budget"), help: ArgumentHelp("Share of --positives' clips the default sensitivity may miss (e.g. 0.1), if that is stricter than the false-alarm target.", valueName: "SHARE"))
    var missBudget: Double?

    @Option(name: .customLong("positives-snr"), help: ArgumentHelp("Hear --positives in a stream of their own, under the --noise at this SNR over their speech (dB, e.g. 0); the rest at --snr.", valueName: "DB"))
    var positivesSNR: Float?

    @Flag(name: .customLong("every-source"), help: "Hold the false-alarm target on each --negatives folder on its own, not only pooled.")
    var everySource = false

    @Flag(name: .customLong("check-phrase"), inversion: .prefixedNo,
          help: "Store that detections must pass the phrase check by default (--no-check-phrase: that they need not; unset: as the model had it).")
    var checkPhrase: Bool?

    @Option(name: .customLong("check-threshold-per-phone"), help: ArgumentHelp("With --check-phrase: pocketsphinx's spotting threshold per phone to store (lower hears more).", valueName: "P"))
    var checkThresholdPerPhone = SpottingRule.defaultThresholdPerPhone

    @Option(name: .customLong("gate-miss-budget"), help: ArgumentHelp("For a pair on two front ends: store the gate that runs the companion least while missing at most this share more keywords than the ungated pair (e.g. 0.005).", valueName: "SHARE"))
    var gateMissBudget: Double?

    @Option(name: .customLong("gate-hold"), help: ArgumentHelp("With --gate-miss-budget: seconds the gate stays open after the first network's score falls below it.", valueName: "SECONDS"))
    var gateHold: Float = 0.3

    @Option(help: ArgumentHelp("Write the tuned model here (default: overwrite --model).", valueName: "MODEL"))
    var out: String?

    func run() throws {
        guard target > 0 else { throw ValidationError("--target-fa-per-hour must be > 0") }
        if let missBudget {
            guard missBudget > 0, missBudget < 1 else { throw ValidationError("--miss-budget \(missBudget): expected a share in (0, 1), e.g. 0.1") }
            guard !data.positives.isEmpty else { throw ValidationError("--miss-budget \(missBudget): needs --positives, the keyword clips it is a share of") }
        }
        guard checkThresholdPerPhone > 0, checkThresholdPerPhone <= 1 else {
            throw ValidationError("--check-threshold-per-phone \(checkThresholdPerPhone): expected a number in (0, 1]")
        }
        let path: String, loaded: KeywordModel
        do {
            path = try ModelStore.resolve(model)
            loaded = try ModelStore.load(path)
        } catch {
            throw CommandFailure("\(error)", status: .configuration)
        }
        if let positivesSNR {
            guard !data.positives.isEmpty else { throw ValidationError("--positives-snr \(format(Double(positivesSNR), 1)): needs --positives, the keyword clips to hear under the noise") }
            guard (-20...60).contains(positivesSNR) else { throw ValidationError("--positives-snr \(positivesSNR): expected dB between -20 and 60, e.g. 0") }
        }
        if let gateMissBudget {
            guard (0..<1).contains(gateMissBudget) else { throw ValidationError("--gate-miss-budget \(gateMissBudget): expected a share in [0, 1), e.g. 0.005") }
            guard loaded.companion != nil else { throw ValidationError("--gate-miss-budget: \(model) has no companion network to gate") }
            guard (0...CompanionGate.maximumHoldSeconds).contains(gateHold) else {
                throw ValidationError("--gate-hold \(gateHold): expected seconds from 0 to \(CompanionGate.maximumHoldSeconds)")
            }
        }
        var data = data
        data.useFetchedCorpora()
        if positivesSNR != nil, data.noise.isEmpty { throw ValidationError("--positives-snr: needs --noise (or a fetched noise corpus) to hear the keywords under") }
        let stream = try data.stream(withKeywords: positivesSNR == nil)
        let keywordStream = try positivesSNR.map { try data.keywordStream(snr: $0) }
        let check = try checkPhrase == true ? PhraseCheckOptions.spotter(
            phrase: loaded.keywords[0], thresholdPerPhone: checkThresholdPerPhone) : nil
        do {
            // A pair's threshold is its ungated one; a gate is chosen at it (and kept without one).
            let trace = try ScoreTrace(loaded.ungated, stream: stream)
            let keywordTrace = try keywordStream.map { try ScoreTrace(loaded.ungated, stream: $0) }
            let result = try Tuning.tune(loaded, over: trace, keywords: keywordTrace, target: target,
                                         missBudget: missBudget, everySource: everySource, check: check)
            var tuned = result.model
            if let gateMissBudget {
                let choice = try GateTuning.choose(loaded, trace: trace, keywords: keywordTrace, threshold: result.chosen.threshold,
                                                   missBudget: gateMissBudget, holdSeconds: gateHold)
                tuned.companion!.gate = choice.gate
                tuned.training.figures["tuned_gate_miss_budget"] = gateMissBudget
                tuned.training.figures["tuned_gate_open_share"] = choice.openShare
                print("gate: logit \(format(Double(choice.gate.logit), 1)), held \(format(Double(choice.gate.holdSeconds), 2)) s: open at \(format(choice.openShare * 100, 1)) % of the first network's outputs; "
                      + "at the threshold it misses \(format(choice.gated.missRate * 100, 1)) % (ungated \(format(choice.ungated.missRate * 100, 1)) %), "
                      + "\(format(choice.gated.falseAlarmsPerHour, 2)) false alarms/h (ungated \(format(choice.ungated.falseAlarmsPerHour, 2)))")
            }
            if let checkPhrase {
                tuned.detection.phraseCheck = checkPhrase ? PhraseCheckDefaults(thresholdPerPhone: checkThresholdPerPhone) : nil
            }
            try ModelStore.save(tuned, to: out ?? path)
            let chosen = result.chosen
            if let check = tuned.detection.phraseCheck {
                print("second stage by default: pocketsphinx spotting \"\(tuned.keywords.joined(separator: "\", \""))\", \(check.thresholdPerPhone) per phone")
            }
            let fitted = result.fittedFalseAlarmsPerHour.map { " (\(format($0, 2)) by the fit of their tail)" } ?? ""
            let setBy = result.setByMissBudget ? " (set by the miss budget: stricter than the false-alarm target asks)"
                : result.setByWorstSource ? " (set by the worst source: the pooled target alone would be more lenient)" : ""
            print("threshold \(format(Double(chosen.threshold), 4)) at sensitivity 0.5\(setBy): \(format(chosen.falseAlarmsPerHour, 2)) false alarms/h\(fitted), miss rate \(format(chosen.missRate * 100, 1)) %")
            if let worst = result.bySource.max(by: { $0.perHour < $1.perHour }) {
                print("worst source there: \(worst.source), \(format(worst.perHour, 2)) false alarms/h (\(worst.falseAlarms) in \(format(worst.hours, 2)) h)")
            }
            print("wrote \(out ?? path)")
        } catch {
            throw CommandFailure("\(error)")
        }
    }
}
