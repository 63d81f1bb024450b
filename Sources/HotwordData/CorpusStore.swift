import Foundation
import HotwordModels

/// How far a corpus has come in the data folder.
public enum CorpusStatus: Sendable, Equatable {
    /// Unpacked: files per folder.
    case fetched([CorpusRole: Int])
    /// Downloaded and verified, not yet unpacked.
    case downloaded
    /// An interrupted download of this many bytes, resumed by the next fetch.
    case partial(Int64)
    case absent
}

/// The folder fetched corpora live in (`~/.local/share/hotword/data` by default):
/// `NAME/ROLE/` for each unpacked corpus (marked complete by `NAME/.hotword-corpus`), and
/// `.downloads/` for downloads in progress (`NAME.part`) or verified and not yet unpacked
/// (`NAME.archive`).
public struct CorpusStore: Sendable {
    public let root: URL

    public init(root: URL) { self.root = root }

    /// `$XDG_DATA_HOME/hotword/data` (default `~/.local/share/hotword/data`).
    public static func defaultRoot(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        InstalledFiles.userData("data", environment: environment)
    }

    static let markerName = ".hotword-corpus"

    public func folder(of name: String) -> URL { root.appendingPathComponent(name) }
    public func folder(of name: String, role: CorpusRole) -> URL { folder(of: name).appendingPathComponent(role.rawValue) }
    var downloads: URL { root.appendingPathComponent(".downloads") }
    func partialDownload(of name: String) -> URL { downloads.appendingPathComponent("\(name).part") }
    func verifiedArchive(of name: String) -> URL { downloads.appendingPathComponent("\(name).archive") }
    func unpacking(_ name: String) -> URL { root.appendingPathComponent(".\(name).unpacking") }

    public func status(of name: String) -> CorpusStatus {
        if let counts = fileCounts(of: name) { return .fetched(counts) }
        if FileManager.default.fileExists(atPath: verifiedArchive(of: name).path) { return .downloaded }
        if let size = try? FileManager.default.attributesOfItem(atPath: partialDownload(of: name).path)[.size] as? Int64 {
            return .partial(size)
        }
        return .absent
    }

    /// The folders of every unpacked corpus for `roles`, by corpus name: what `train`, `enroll`
    /// and `eval` use when no folders are given.
    public func fetchedFolders(for roles: [CorpusRole]) -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        return names.sorted().flatMap { name -> [URL] in
            guard let counts = fileCounts(of: name) else { return [] }
            return roles.filter { counts[$0, default: 0] > 0 }.map { folder(of: name, role: $0) }
        }
    }

    /// Files per role of an unpacked corpus, from its marker; nil when it is not complete.
    func fileCounts(of name: String) -> [CorpusRole: Int]? {
        let marker = folder(of: name).appendingPathComponent(Self.markerName)
        guard let text = try? String(contentsOf: marker, encoding: .utf8) else { return nil }
        var counts: [CorpusRole: Int] = [:]
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: "\t").map(String.init)
            if fields.count == 2, let role = CorpusRole(rawValue: fields[0]), let count = Int(fields[1]) { counts[role] = count }
        }
        return counts
    }

    /// The marker's text: where the corpus came from, and its files per folder.
    static func marker(for entry: CorpusEntry, counts: [CorpusRole: Int]) -> String {
        var lines = [("name", entry.name), ("url", entry.url.absoluteString), ("checksum", entry.checksum.description),
                     ("layout", entry.layout.rawValue)]
        lines += counts.keys.sorted().map { ($0.rawValue, String(counts[$0]!)) }
        return lines.map { "\($0.0)\t\($0.1)\n" }.joined()
    }
}

extension CorpusStore {
    /// Downloads `entry` (or resumes its download), verifies and unpacks it; the archive is
    /// deleted once unpacked unless `keepArchive`. A verified archive from an earlier fetch
    /// whose unpacking failed is unpacked without downloading again.
    public func fetch(_ entry: CorpusEntry, with downloader: CorpusDownloader = CorpusDownloader(), keepArchive: Bool = false,
                      events: @escaping @Sendable (FetchEvent) -> Void) async throws(CorpusError) -> [CorpusRole: Int] {
        let archive = verifiedArchive(of: entry.name)
        if !FileManager.default.fileExists(atPath: archive.path) {
            try await downloader.download(entry, into: self, events: events)
        }
        let counts = try CorpusUnpacker.unpack(archive, as: entry, into: self) { events(.unpacking(files: $0)) }
        if !keepArchive { try? FileManager.default.removeItem(at: archive) }
        return counts
    }
}
