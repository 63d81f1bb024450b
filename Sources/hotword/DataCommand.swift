import ArgumentParser
import Foundation
import HotwordData

/// `hotword data …`: the public corpora training uses.
struct DataCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "data",
        abstract: "List and fetch the public speech, noise and room-response corpora training uses.",
        discussion: """
            `train`, `enroll` and `eval` use the fetched corpora when --negatives, --noise or --rirs \
            are not given. The catalogue (Corpora/catalogue.tsv in the source, \
            /usr/share/hotword/corpora/catalogue.tsv when installed) pins each corpus's URL, size, \
            checksum and license.
            """,
        subcommands: [DataListCommand.self, DataFetchCommand.self])
}

/// Where the corpora go and which catalogue lists them: options of `data list` and `data fetch`.
struct DataOptions: ParsableArguments {
    @Option(name: .customLong("dir"), help: ArgumentHelp("The folder of fetched corpora. (default: ~/.local/share/hotword/data)", valueName: "DIR"))
    var directory: String?

    @Option(help: ArgumentHelp("The catalogue of corpora to use instead of the installed one.", valueName: "FILE"))
    var catalogue: String?

    var store: CorpusStore { CorpusStore(root: directory.map { URL(fileURLWithPath: $0) } ?? CorpusStore.defaultRoot()) }

    /// A catalogue that cannot be read or has a wrong line is a configuration problem (status 78).
    func loadCatalogue() throws -> CorpusCatalogue {
        do { return try CorpusCatalogue.load(catalogue) } catch {
            throw CommandFailure("\(error)", status: .configuration)
        }
    }
}

extension [CorpusRole: Int] {
    /// "1400 words, 6 noise" in the roles' order.
    var filesText: String {
        keys.sorted().map { "\(self[$0]!) \($0.rawValue)" }.joined(separator: ", ")
    }
}
