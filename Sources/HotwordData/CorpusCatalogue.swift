import Foundation
import HotwordModels

/// The size of a corpus's download: exact where it is pinned, approximate where its publisher
/// gives only a rounded figure (then it is not checked).
public enum CorpusSize: Sendable, Equatable, CustomStringConvertible {
    case exact(Int64)
    case approximate(Int64)

    public var bytes: Int64 {
        switch self {
        case .exact(let bytes), .approximate(let bytes): bytes
        }
    }

    public var description: String {
        switch self {
        case .exact(let bytes): Self.human(bytes)
        case .approximate(let bytes): "≈ " + Self.human(bytes)
        }
    }

    /// Decimal units, as download sizes are given: 2428923189 → "2.43 GB".
    public static func human(_ bytes: Int64) -> String {
        let units = ["bytes", "kB", "MB", "GB", "TB"]
        var value = Double(bytes), unit = 0
        while value >= 1000, unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return unit == 0 ? "\(bytes) bytes" : String(format: value < 10 ? "%.2f %@" : value < 100 ? "%.1f %@" : "%.0f %@", value, units[unit])
    }
}

/// One line of the catalogue: a public corpus and how to fetch and unpack it.
public struct CorpusEntry: Sendable, Equatable {
    public let name: String
    public let layout: CorpusLayout
    public let size: CorpusSize
    public let checksum: Checksum
    public let license: String
    public let url: URL
    /// What it is and what it is for, one sentence.
    public let summary: String
}

/// The list of corpora `hotword data` knows (`Corpora/catalogue.tsv`): one tab-separated line
/// per corpus — name, layout, bytes (`~` before an unpinned, rounded figure), checksum
/// (`sha256:…` or `md5:…`), license, URL, what it is for. `#` starts a comment line.
public struct CorpusCatalogue: Sendable {
    public let file: String
    public let entries: [CorpusEntry]

    public static let fileName = "catalogue.tsv"
    static let fields = ["name", "layout", "bytes", "checksum", "license", "url", "what"]

    /// Reads `file`, or the installed catalogue when nil (the source tree's `Corpora/` next to
    /// a development build, then `share/hotword/corpora` beside the program, /usr/local, /usr).
    public static func load(_ file: String? = nil) throws(CorpusError) -> CorpusCatalogue {
        let path: String
        if let file {
            path = file
        } else {
            let folders = InstalledFiles.searchPath(sourceFolder: "Corpora", installedFolder: "corpora")
            guard let found = folders.map({ ($0 as NSString).appendingPathComponent(fileName) })
                .first(where: { FileManager.default.fileExists(atPath: $0) }) else { throw .noCatalogue(searched: folders) }
            path = found
        }
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw .catalogueUnreadable(file: path, reason: (error as NSError).localizedDescription)
        }
        return try CorpusCatalogue(parsing: text, file: path)
    }

    public init(parsing text: String, file: String) throws(CorpusError) {
        self.file = file
        var entries: [CorpusEntry] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { continue }
            let entry = try Self.entry(String(line), file: file, line: index + 1)
            if entries.contains(where: { $0.name == entry.name }) {
                throw .catalogue(file: file, line: index + 1, problem: "a second corpus named '\(entry.name)'; names must differ")
            }
            entries.append(entry)
        }
        self.entries = entries
    }

    public func entry(named name: String) throws(CorpusError) -> CorpusEntry {
        guard let entry = entries.first(where: { $0.name == name }) else {
            throw .unknownCorpus(name: name, known: entries.map(\.name))
        }
        return entry
    }

    private static func entry(_ line: String, file: String, line number: Int) throws(CorpusError) -> CorpusEntry {
        let values = line.split(separator: "\t", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard values.count == fields.count else {
            throw .catalogue(file: file, line: number,
                             problem: "\(values.count) tab-separated fields, expected \(fields.count): \(fields.joined(separator: ", "))")
        }
        func problem(_ field: String, _ expected: String) -> CorpusError {
            .catalogue(file: file, line: number, problem: "\(field) '\(values[fields.firstIndex(of: field)!])': expected \(expected)")
        }
        let name = values[0], layoutName = values[1], bytes = values[2], checksum = values[3]
        guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "_") }) else {
            throw problem("name", "lower-case letters, digits and _")
        }
        guard let layout = CorpusLayout(rawValue: layoutName) else {
            throw problem("layout", "one of \(CorpusLayout.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let approximate = bytes.hasPrefix("~")
        guard let count = Int64(approximate ? String(bytes.dropFirst()) : bytes), count > 0 else {
            throw problem("bytes", "a whole number of bytes, with ~ before it if it is only rounded")
        }
        guard let pinned = Checksum(checksum) else {
            throw problem("checksum", "sha256:<64 hex digits> or md5:<32 hex digits>")
        }
        guard !values[4].isEmpty else { throw problem("license", "the corpus's license") }
        guard let url = URL(string: values[5]), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
            throw problem("url", "an http or https URL")
        }
        guard !values[6].isEmpty else { throw problem("what", "what the corpus is and is for") }
        return CorpusEntry(name: name, layout: layout, size: approximate ? .approximate(count) : .exact(count),
                           checksum: pinned, license: values[4], url: url, summary: values[6])
    }
}
