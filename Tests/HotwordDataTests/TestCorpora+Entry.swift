import Foundation
@testable import HotwordData
import HotwordTestSupport

extension TestCorpora {
    /// A catalogue line for `content` served at `url`.
    static func entry(_ name: String, _ layout: CorpusLayout, content: Data, url: URL,
                      checksum: Checksum? = nil, size: CorpusSize? = nil) throws -> CorpusEntry {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("mini-\(UUID().uuidString)")
        try content.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let sha256 = try FileDigest.of(file, algorithms: [.sha256])[.sha256]!
        return CorpusEntry(name: name, layout: layout, size: size ?? .exact(Int64(content.count)),
                           checksum: checksum ?? Checksum("sha256:\(sha256)")!, license: "CC0", url: url, summary: "a test corpus")
    }
}
