import Foundation
@testable import HotwordData
import HotwordTestSupport
import Testing

@Suite("unpacking corpora") final class UnpackTests {
    let folder: URL
    let store: CorpusStore

    init() throws {
        folder = try TestPaths.temporaryDirectory("unpack")
        store = CorpusStore(root: folder.appendingPathComponent("data"))
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    private func files(_ name: String, _ role: CorpusRole) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: store.folder(of: name, role: role).path).sorted()
    }

    @Test func aSpeechCommandsTarGzKeepsFirstTakesAndNoiseAndDropsWhatIsNotAudio() throws {
        let archive = folder.appendingPathComponent("sc.tar.gz")
        try TestCorpora.speechCommands(in: folder).write(to: archive)
        let entry = try TestCorpora.entry("speech_commands", .speechCommands, content: Data(contentsOf: archive), url: URL(string: "http://x/sc.tar.gz")!)
        let counts = try CorpusUnpacker.unpack(archive, as: entry, into: store)
        #expect(counts == [.words: 4, .noise: 2])
        #expect(try files("speech_commands", .words) == ["00000000_yes.wav", "00000001_yes.wav", "00000002_yes.wav", "abcdef12_no.wav"])
        #expect(try files("speech_commands", .noise) == ["running_tap.wav", "white_noise.wav"])
        #expect(store.status(of: "speech_commands") == .fetched([.words: 4, .noise: 2]))
        #expect(store.fetchedFolders(for: CorpusRole.negatives) == [store.folder(of: "speech_commands", role: .words)])
        #expect(!FileManager.default.fileExists(atPath: store.unpacking("speech_commands").path))
    }

    @Test func aWordKeepsAtMostFortySpeakers() throws {
        let archive = folder.appendingPathComponent("sc.tar.gz")
        try TestCorpora.speechCommands(in: folder, yesSpeakers: 43).write(to: archive)
        let entry = try TestCorpora.entry("speech_commands", .speechCommands, content: Data(contentsOf: archive), url: URL(string: "http://x/sc.tar.gz")!)
        #expect(try CorpusUnpacker.unpack(archive, as: entry, into: store) == [.words: 41, .noise: 2])
        #expect(try files("speech_commands", .words).filter { $0.hasSuffix("_yes.wav") }.count == 40)
    }

    @Test func anOpenSLRZipKeepsSmallAndMediumRoomsAndPointSourceNoises() throws {
        let archive = folder.appendingPathComponent("rirs.zip")
        try TestCorpora.rirsNoises(in: folder).write(to: archive)
        let entry = try TestCorpora.entry("rirs_noises", .openslrRIRsNoises, content: Data(contentsOf: archive), url: URL(string: "http://x/r.zip")!)
        #expect(try CorpusUnpacker.unpack(archive, as: entry, into: store) == [.rirs: 3, .noise: 2])
        #expect(try files("rirs_noises", .rirs) == ["mediumroom-Room001.wav", "smallroom-Room001.wav", "smallroom-Room002.wav"])
        #expect(store.fetchedFolders(for: [.rirs, .noise]).map(\.lastPathComponent) == ["rirs", "noise"])
    }

    @Test func anArchiveOfAnotherLayoutLeavesNothingBehind() throws {
        let archive = folder.appendingPathComponent("rirs.zip")
        try TestCorpora.rirsNoises(in: folder).write(to: archive)
        let entry = try TestCorpora.entry("librispeech_dev_clean", .librispeech, content: Data(contentsOf: archive), url: URL(string: "http://x/r.zip")!)
        #expect(throws: CorpusError.nothingToKeep(corpus: "librispeech_dev_clean", layout: "librispeech", archive: archive.path)) {
            try CorpusUnpacker.unpack(archive, as: entry, into: store)
        }
        #expect(store.status(of: "librispeech_dev_clean") == .absent)
        #expect(!FileManager.default.fileExists(atPath: store.unpacking("librispeech_dev_clean").path))
    }

    @Test func theDataFolderFollowsXDG() {
        #expect(CorpusStore.defaultRoot(environment: ["XDG_DATA_HOME": "/data", "HOME": "/home/u"]).path == "/data/hotword/data")
        #expect(CorpusStore.defaultRoot(environment: ["HOME": "/home/u"]).path == "/home/u/.local/share/hotword/data")
    }

    @Test func aFileThatIsNoArchiveIsNamed() throws {
        let archive = folder.appendingPathComponent("broken.tar.gz")
        try Data("<html>not an archive</html>".utf8).write(to: archive)
        let entry = try TestCorpora.entry("musan", .musan, content: Data(), url: URL(string: "http://x/m")!)
        #expect {
            try CorpusUnpacker.unpack(archive, as: entry, into: store)
        } throws: { error in
            "\(error)".hasPrefix("\(archive.path): not a readable archive: ")
        }
    }
}
