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

    /// As ArgumentParser's, but every failure ends the README's way: a line starting `Error: `,
    /// and status 64 for a wrong command line (with the usage of the command given), 78 or 1 for
    /// a `CommandFailure`, 1 for anything else.
    static func main() async {
        var command: ParsableCommand
        do {
            command = try parseAsRoot()
        } catch {
            if let unknown = UnknownCommand(in: Array(CommandLine.arguments.dropFirst())) { unknown.exit() }
            exit(withError: error)
        }
        do {
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let failure as CommandFailure {
            failure.exit()
        } catch let error as ValidationError {
            // A value only checkable once the command runs (a keyword no model has): a wrong command line all the same.
            CommandFailure.usage(error.message, usage: "Usage: " + usageString(for: type(of: command))).exit()
        } catch {
            // ArgumentParser's own (--help, ExitCode), and any other as `Error: …`, status 1.
            exit(withError: error)
        }
    }
}

/// A word where a command was expected (`hotword bogus`, `hotword data bogus`): named, with the
/// commands there are, instead of ArgumentParser's "Unexpected argument" and the whole usage.
struct UnknownCommand {
    let word: String
    /// The commands leading to it: `hotword`, `hotword data`.
    let path: String
    let group: ParsableCommand.Type

    /// The first word of `arguments` that names no subcommand of the group it follows; nil when
    /// there is none (the command line is wrong in another way).
    init?(in arguments: [String], group: ParsableCommand.Type = Hotword.self) {
        var group = group
        var path = ["hotword"]
        for argument in arguments {
            let subcommands = group.configuration.subcommands
            guard !subcommands.isEmpty, !argument.hasPrefix("-") else { return nil }
            guard let next = subcommands.first(where: { $0.configuration.commandName == argument }) else {
                guard group.configuration.defaultSubcommand == nil, argument != "help" else { return nil }
                word = argument
                self.path = path.joined(separator: " ")
                self.group = group
                return
            }
            group = next
            path.append(argument)
        }
        return nil
    }

    func exit() -> Never {
        let names = group.configuration.subcommands.compactMap { $0.configuration.commandName }
        CommandFailure.usage("unknown command '\(word)'; the commands of \(path) are: \(names.joined(separator: ", "))",
                             usage: "See '\(path) --help'.").exit()
    }
}

enum HotwordVersion {
    static let current = "0.1.0"
}
