import ArgumentParser
import HotwordCore
import HotwordModels
import HotwordTraining

/// `hotword tune`: set the operating point for a target false-alarm rate.
struct TuneCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tune",
        abstract: "Choose the detection threshold that meets a false-alarm target and store it in the model.",
        discussion: """
            Measures false alarms per hour on the given data (as `hotword eval` does) across score \
            thresholds and writes the model back with sensitivity 0.5 at the lowest threshold that \
            meets --target-fa-per-hour, 0 at a tenth of the target and 1 at ten times it.
            """)

    @Option(help: "The model file to tune.")
    var model: String

    @OptionGroup var data: EvaluationDataOptions

    @Option(name: .customLong("target-fa-per-hour"), help: "False alarms per hour to allow at the default sensitivity.")
    var target: Double = 1

    @Option(help: ArgumentHelp("Write the tuned model here (default: overwrite --model).", valueName: "MODEL"))
    var out: String?

    func run() throws {
        guard target > 0 else { throw ValidationError("--target-fa-per-hour must be > 0") }
        let path: String, loaded: KeywordModel
        do {
            path = try ModelStore.resolve(model)
            loaded = try ModelStore.load(path)
        } catch {
            throw CommandFailure("\(error)", status: .configuration)
        }
        var data = data
        data.useFetchedCorpora()
        let stream = try data.stream()
        do {
            let result = try Tuning.tune(loaded, stream: stream, target: target)
            try ModelStore.save(result.model, to: out ?? path)
            let chosen = result.chosen
            print("threshold \(format(Double(chosen.threshold), 4)) at sensitivity 0.5: \(format(chosen.falseAlarmsPerHour, 2)) false alarms/h, miss rate \(format(chosen.missRate * 100, 1)) %")
            print("wrote \(out ?? path)")
        } catch {
            throw CommandFailure("\(error)")
        }
    }
}
