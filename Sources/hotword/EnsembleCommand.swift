import ArgumentParser
import HotwordCore
import HotwordModels
import HotwordTraining

/// `hotword ensemble`: models of one recipe, trained with different seeds, run as one.
struct EnsembleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ensemble",
        abstract: "Combine models of one keyword into one that scores their mean: seeds side by side, or two front ends paired.",
        discussion: """
            The models must hear the same keywords with the same features and network shape \
            (`hotword train` runs that differ in --seed). The result runs them side by side as one \
            network whose score is the sigmoid of their mean logit: their mistakes differ, so it \
            misses less and wakes falsely less, at N times the run-time work. `hotword train \
            --ensemble N` trains the same thing in one go. Two models on different front ends \
            (log-mel features and the speech embedding, say) pair instead: the second runs beside \
            the first as its companion network, on its own features, and the score is still the \
            sigmoid of their mean logit. It keeps the first model's operating point: run `hotword \
            tune` on the result.
            """)

    @Argument(help: ArgumentHelp("Model files or bundled model names (two or more).", valueName: "MODEL"))
    var models: [String]

    @Option(name: .customLong("out"), help: ArgumentHelp("Where to write the combined model (.hwks).", valueName: "MODEL"))
    var output: String

    func validate() throws {
        guard models.count >= 2 else { throw ValidationError("give two or more models to combine, got \(models.count)") }
    }

    func run() throws {
        do {
            let members = try models.map { name throws(ModelFileError) in try ModelStore.load(named: name) }
            var model = try KeywordModel.ensemble(of: members)
            model.training.command = invokedCommandLine
            model.training.data = zip(models, members).map { name, member in "member \(name): \(member.training.command)" }
            try ModelStore.save(model, to: output)
            let arrangement = model.companion == nil ? "side by side" : "on two front ends"
            print("wrote \(output): \(members.count) models \(arrangement), \(model.parameterCount) parameters, "
                + "\(format(model.multiplyAddsPerSecond / 1e6, 2)) M multiply-adds per second")
        } catch let error as TrainingError {
            throw CommandFailure("\(models.joined(separator: ", ")): \(error)")
        } catch let error as ModelFileError {
            // A member that does not load is a wrong model, as for every command that reads one.
            throw CommandFailure("\(error)", status: .configuration)
        }
    }
}
