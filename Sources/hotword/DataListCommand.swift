import ArgumentParser
import Foundation
import HotwordData

/// `hotword data list`: the corpora of the catalogue, and which are fetched.
struct DataListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Show the corpora hotword can fetch, with size, license, what each is for, and what is fetched.")

    @OptionGroup var data: DataOptions

    func run() throws {
        let catalogue = try data.loadCatalogue()
        let store = data.store
        let width = catalogue.entries.map(\.name.count).max() ?? 0
        let sizeWidth = catalogue.entries.map(\.size.description.count).max() ?? 0
        for entry in catalogue.entries {
            let status: String = switch store.status(of: entry.name) {
            case .fetched(let counts): "fetched: \(counts.filesText)"
            case .downloaded: "downloaded, not unpacked (fetch it again)"
            case .partial(let bytes): "\(CorpusSize.human(bytes)) downloaded (fetch resumes)"
            case .absent: "not fetched"
            }
            let roles = entry.layout.roles.map(\.rawValue).joined(separator: ", ")
            print("\(entry.name.padding(toLength: width, withPad: " ", startingAt: 0))  \(entry.size.description.padding(toLength: sizeWidth, withPad: " ", startingAt: 0))  \(entry.license)  (\(roles))  \(status)")
            print("    \(entry.summary)")
        }
        print("")
        print("folder: \(store.root.path)")
        print("catalogue: \(catalogue.file)")
        print("fetch with: hotword data fetch NAME…")
    }
}
