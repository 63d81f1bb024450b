import ArgumentParser
import Foundation
import HotwordData

/// `hotword data fetch NAME…`: download, verify and unpack corpora.
struct DataFetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Download corpora of the catalogue, verify them and unpack them for training.",
        discussion: """
            Each download is checked against the size and checksum the catalogue pins (a wrong one \
            is deleted), then unpacked into DIR/NAME/ (words/, speech/, noise/, rirs/); the archive \
            is deleted afterwards. An interrupted download (a broken connection, Ctrl-C, a full disk) \
            is resumed where it stopped by the next fetch, with an HTTP range request; a broken \
            connection is also resumed by itself, up to 5 requests. Exit status: 0 when all are \
            fetched, 1 when one failed (download, checksum, disk; offline: 'cannot reach' after \
            the retries), 64 for a name not in the catalogue, 78 for a wrong catalogue.
            """)

    @Argument(help: ArgumentHelp("Corpora to fetch, by the names `hotword data list` shows.", valueName: "NAME"))
    var names: [String]

    @OptionGroup var data: DataOptions

    @Flag(help: "Keep each downloaded archive (in DIR/.downloads) after unpacking it.")
    var keepArchive = false

    func run() async throws {
        let catalogue = try data.loadCatalogue()
        let entries: [CorpusEntry]
        do { entries = try names.map { name throws(CorpusError) in try catalogue.entry(named: name) } } catch {
            throw ValidationError("\(error)")
        }
        let store = data.store
        for entry in entries {
            if case .fetched(let counts) = store.status(of: entry.name) {
                print("\(entry.name): already fetched (\(counts.filesText)) in \(store.folder(of: entry.name).path); remove that folder to fetch it again")
                continue
            }
            let progress = FetchProgress(corpus: entry.name)
            do {
                let counts = try await store.fetch(entry, keepArchive: keepArchive) { progress.show($0) }
                progress.finish()
                print("\(entry.name): \(counts.filesText) in \(store.folder(of: entry.name).path)")
            } catch {
                progress.finish()
                throw CommandFailure("\(error)")
            }
        }
    }
}
