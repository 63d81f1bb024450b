import ArgumentParser
import Foundation
import HotwordData

/// `--data-dir`: where `hotword data fetch` put the corpora that `train`, `enroll` and `eval`
/// use for whatever their command line does not give.
struct FetchedCorporaOptions: ParsableArguments {
    @Option(name: .customLong("data-dir"), help: ArgumentHelp("Folder of corpora fetched with `hotword data fetch`, used where --negatives, --noise or --rirs are not given. (default: ~/.local/share/hotword/data)", valueName: "DIR"))
    var directory: String?

    var store: CorpusStore { CorpusStore(root: directory.map { URL(fileURLWithPath: $0) } ?? CorpusStore.defaultRoot()) }

    /// `given` if there is any, else the fetched corpora's folders for `roles`, named on
    /// standard error so the user knows what was used.
    func folders(_ given: [String], for option: String, roles: [CorpusRole]) -> [String] {
        guard given.isEmpty else { return given }
        let fetched = store.fetchedFolders(for: roles).map(\.path)
        if !fetched.isEmpty { printError("\(option) not given: using the fetched corpora \(fetched.joined(separator: ", "))") }
        return fetched
    }

    /// Why there is no negative audio, and how to get some.
    func noNegatives(_ option: String) -> CommandFailure {
        CommandFailure("no \(option) given and no fetched corpus of speech in \(store.root.path): `hotword data fetch speech_commands librispeech_dev_clean` fetches some (`hotword data list` shows all), or give \(option) DIR")
    }
}
