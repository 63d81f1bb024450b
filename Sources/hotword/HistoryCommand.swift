import ArgumentParser

/// `hotword history …`: the conversation history kept in `history.sqlite`.
struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Show or clear the questions and answers kept in the history database.",
        discussion: """
            hotword run and hotword ask record every exchange in $STATE_DIRECTORY/history.sqlite \
            (~/.local/state/hotword/history.sqlite; [history] in hotword.toml). Without a subcommand, \
            shows it; `hotword history server` shows what the SUSI server ([susi] server, or \
            --server URL) remembers instead.
            """,
        subcommands: [HistoryShowCommand.self, HistoryClearCommand.self, HistoryServerCommand.self],
        defaultSubcommand: HistoryShowCommand.self)
}
