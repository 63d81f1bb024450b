import ArgumentParser

/// The `hotword` command: every subcommand is a small type in this folder.
@main
struct Hotword: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hotword",
        abstract: "Offline wake-word detection and voice assistant.",
        version: HotwordVersion.current,
        subcommands: [
            // listening and asking
            AskCommand.self,
            // audio devices
            DevicesCommand.self,
            RecordCommand.self,
            // offline detection and measurement
            DetectCommand.self,
            BenchCommand.self,
            // models
            SynthesizeCommand.self,
            TrainCommand.self,
            EvalCommand.self,
            TuneCommand.self,
        ]
    )
}

enum HotwordVersion {
    static let current = "0.1.0"
}
