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
            RunCommand.self,
            ServeCommand.self,
            AskCommand.self,
            SkillsCommand.self,
            LoginCommand.self,
            LogoutCommand.self,
            WhoamiCommand.self,
            PasswordCommand.self,
            FeedbackCommand.self,
            HistoryCommand.self,
            SettingsCommand.self,
            ConfigCommand.self,
            // speech: check text-to-speech and speech-to-text setups
            SayCommand.self,
            TranscribeCommand.self,
            // audio devices
            DevicesCommand.self,
            RecordCommand.self,
            // offline detection and measurement
            DetectCommand.self,
            BenchCommand.self,
            // models
            SynthesizeCommand.self,
            TrainCommand.self,
            EnrollCommand.self,
            EvalCommand.self,
            TuneCommand.self,
            EnsembleCommand.self,
            DataCommand.self,
        ]
    )

    /// As ArgumentParser's, but a `CommandFailure` ends with its own status (and no usage text).
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var command = command as? AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch let failure as CommandFailure {
            failure.exit()
        } catch {
            exit(withError: error)
        }
    }
}

enum HotwordVersion {
    static let current = "0.1.0"
}
