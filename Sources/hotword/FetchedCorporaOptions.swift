import ArgumentParser
import Foundation
import HotwordData

/// `--data-dir`: where `hotword data fetch` put the corpora that `train`, `enroll` and `eval`
/// use for whatever their command line does not give.
struct FetchedCorporaOptions: ParsableArguments {
    @Option(name: .customLong("data-dir"), help: ArgumentHelp("Folder of corpora fetched with `hotword data fetch`, used where --negatives, --noise or --rirs are not given. (default: ~/.local/share/hotword/data)", valueName: "DIR"))
    var directory: String?

    var store: CorpusStore { CorpusStore(root: directory.map { URL(fileURLWithPath: $0) } ?? CorpusStore.defaultRoot()) }

    /// `given`, where the name of a fetched corpus (that is no path here) stands for its folders
    /// for `roles`; when nothing is given, every fetched corpus's. What stands for what is named
    /// on standard error, so the user knows what was used.
    func folders(_ given: [String], for option: String, roles: [CorpusRole]) -> [String] {
        guard !given.isEmpty else {
            let fetched = store.fetchedFolders(for: roles).map(\.path)
            if !fetched.isEmpty { printNote("\(option) not given: using the fetched corpora \(fetched.joined(separator: ", "))") }
            return fetched
        }
        return given.flatMap { value -> [String] in
            guard !FileManager.default.fileExists(atPath: value), case .fetched = store.status(of: value) else { return [value] }
            let folders = roles.map { store.folder(of: value, role: $0).path }.filter { FileManager.default.fileExists(atPath: $0) }
            guard !folders.isEmpty else {
                printNote("\(option) \(value): the fetched corpus has no \(roles.map(\.rawValue).joined(separator: " or ")) folder")
                return [value]
            }
            printNote("\(option) \(value): the fetched corpus \(folders.joined(separator: ", "))")
            return folders
        }
    }

    /// Why there is no negative audio, and how to get some.
    func noNegatives(_ option: String) -> CommandFailure {
        CommandFailure("no \(option) given and no fetched corpus of speech in \(store.root.path): `hotword data fetch speech_commands librispeech_dev_clean` fetches some (`hotword data list` shows all), or give \(option) DIR")
    }
}
