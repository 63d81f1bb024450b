import ArgumentParser
import Foundation

/// `hotword history clear`: deletes every exchange kept.
struct HistoryClearCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clear",
        abstract: "Delete every exchange from the history database (planned answers stay).",
        discussion: "The file is compacted afterwards, so the deleted questions and answers are gone from the disk too.")

    @Option(help: ArgumentHelp("Read settings from this file only (instead of the system and user files).", valueName: "FILE"))
    var config: String?

    func run() throws {
        let settings = try SettingsFiles.load(only: config)
        guard let store = try HistoryAccess.open(settings.history, creating: false) else {
            print("No exchanges recorded (\(settings.history.file.path)).")
            return
        }
        do {
            let deleted = try store.clear()
            print(deleted == 0 ? "No exchanges recorded (\(store.file.path))." : "Deleted \(deleted) exchanges from \(store.file.path).")
        } catch {
            throw CommandFailure("\(error)")
        }
    }
}
