import Foundation
@testable import HotwordData
import HotwordTestSupport
import Testing

@Suite("corpus catalogue")
struct CatalogueTests {
    static let good = "speech_commands\tspeech-commands\t2428923189\tsha256:af14739ee7dc311471de98f5f9d2c9191b18aedfe957f4a6ff791c709868ff58\tCC BY 4.0\thttp://download.tensorflow.org/data/speech_commands_v0.02.tar.gz\twords"

    @Test func theRepositorysCatalogueReadsAndPinsWhatItClaims() throws {
        let catalogue = try CorpusCatalogue.load(TestPaths.projectRoot.appendingPathComponent("Corpora/catalogue.tsv").path)
        #expect(catalogue.entries.map(\.name) == ["speech_commands", "librispeech_dev_clean", "librispeech_test_clean", "rirs_noises", "musan"])
        for entry in catalogue.entries {
            #expect(!entry.layout.roles.isEmpty && !entry.license.isEmpty && !entry.summary.isEmpty)
            // A pinned SHA-256 comes with the exact size; an MD5 stands in only where both are not known yet.
            switch (entry.checksum.algorithm, entry.size) {
            case (.sha256, .exact), (.md5, .approximate): break
            default: Issue.record("\(entry.name): \(entry.checksum) with size \(entry.size)")
            }
        }
        let commands = try catalogue.entry(named: "speech_commands")
        #expect(commands.size == .exact(2_428_923_189) && commands.layout == .speechCommands)
        #expect(commands.checksum.description == "sha256:af14739ee7dc311471de98f5f9d2c9191b18aedfe957f4a6ff791c709868ff58")
    }

    @Test(arguments: [
        ("speech_commands\tspeech-commands\t1", "3 tab-separated fields, expected 7"),
        ("Speech\tspeech-commands\t1\tmd5:0c472d4fc0c5141eca47ad1ffeb2a7df\tCC0\thttps://x.org/a\tw", "name 'Speech': expected lower-case letters, digits and _"),
        ("a\tzip\t1\tmd5:0c472d4fc0c5141eca47ad1ffeb2a7df\tCC0\thttps://x.org/a\tw", "layout 'zip': expected one of speech-commands, librispeech, openslr-rirs-noises, musan"),
        ("a\tmusan\t1.3G\tmd5:0c472d4fc0c5141eca47ad1ffeb2a7df\tCC0\thttps://x.org/a\tw", "bytes '1.3G': expected a whole number of bytes"),
        ("a\tmusan\t~13\tsha256:abc\tCC0\thttps://x.org/a\tw", "checksum 'sha256:abc': expected sha256:<64 hex digits> or md5:<32 hex digits>"),
        ("a\tmusan\t13\tmd5:0c472d4fc0c5141eca47ad1ffeb2a7df\t\thttps://x.org/a\tw", "license '': expected the corpus's license"),
        ("a\tmusan\t13\tmd5:0c472d4fc0c5141eca47ad1ffeb2a7df\tCC0\tftp://x.org/a\tw", "url 'ftp://x.org/a': expected an http or https URL"),
    ])
    func aWrongLineIsNamedWithItsFieldAndWhatWasExpected(line: String, problem: String) {
        #expect {
            try CorpusCatalogue(parsing: "# corpora\n\n\(line)\n", file: "c.tsv")
        } throws: { error in
            "\(error)".hasPrefix("c.tsv:3: \(problem)")
        }
    }

    @Test func namesAreUniqueAndLookedUp() throws {
        #expect {
            try CorpusCatalogue(parsing: "\(Self.good)\n\(Self.good)\n", file: "c.tsv")
        } throws: { error in
            "\(error)" == "c.tsv:2: a second corpus named 'speech_commands'; names must differ"
        }
        let catalogue = try CorpusCatalogue(parsing: Self.good, file: "c.tsv")
        #expect(throws: CorpusError.unknownCorpus(name: "musan", known: ["speech_commands"])) { try catalogue.entry(named: "musan") }
    }

    @Test func sizesReadAsDownloadsAreGiven() {
        #expect(CorpusSize.exact(2_428_923_189).description == "2.43 GB")
        #expect(CorpusSize.exact(337_926_286).description == "338 MB")
        #expect(CorpusSize.approximate(11_000_000_000).description == "≈ 11.0 GB")
        #expect(CorpusSize.exact(999).description == "999 bytes")
    }
}

@Suite("file digests")
struct DigestTests {
    @Test func knownVectors() throws {
        let folder = try TestPaths.temporaryDirectory("digest")
        defer { try? FileManager.default.removeItem(at: folder) }
        let abc = folder.appendingPathComponent("abc"), empty = folder.appendingPathComponent("empty")
        try Data("abc".utf8).write(to: abc)
        try Data().write(to: empty)
        let digests = try FileDigest.of(abc, algorithms: [.md5, .sha256])
        #expect(digests[.sha256] == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(digests[.md5] == "900150983cd24fb0d6963f7d28e17f72")
        #expect(try FileDigest.of(empty, algorithms: [.sha256])[.sha256] == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(throws: CorpusError.self) { try FileDigest.of(folder.appendingPathComponent("none"), algorithms: [.sha256]) }
    }

    @Test func checksumsParseOnlyWithTheRightLength() {
        #expect(Checksum("MD5:900150983CD24FB0D6963F7D28E17F72")?.description == "md5:900150983cd24fb0d6963f7d28e17f72")
        #expect(Checksum("md5:900150983cd24fb0d6963f7d28e17f7") == nil)
        #expect(Checksum("sha1:a9993e364706816aba3e25717850c26c9cd0d89d") == nil)
        #expect(Checksum("sha256:zz7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad") == nil)
    }
}
