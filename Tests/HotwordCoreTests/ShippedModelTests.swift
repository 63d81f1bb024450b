import Foundation
import HotwordAudio
import HotwordCore
import HotwordModels
import HotwordTestSupport
import Testing

/// The models in Models/ load, stream, and hear their own word in real recordings from
/// ../shared/data/keywords (and not the other keywords).
@Suite struct ShippedModelTests {
    func clips(_ keyword: String, count: Int) throws -> [[Float]] {
        let folder = TestPaths.sharedData.appendingPathComponent("keywords/\(keyword)")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".flac") }.sorted()
        return try names.prefix(count).map { try AudioFileReader.read(folder.appendingPathComponent($0)).samples }
    }

    func detections(_ model: KeywordModel, in clip: [Float]) throws -> [Detection] {
        // Leading silence lets the network see a full window before the word.
        try Detector(models: [model]).process([Float](repeating: 0, count: 32_000) + clip)
    }

    @Test(arguments: ["alexa", "computer", "jarvis"])
    func hearsItsKeywordAndNotTheOthers(keyword: String) throws {
        let model = try ModelStore.load(TestPaths.projectRoot.appendingPathComponent("Models/\(keyword).hwks").path)
        #expect(model.keywords == [keyword])
        let own = try clips(keyword, count: 8).filter { try !detections(model, in: $0).isEmpty }.count
        #expect(own >= 6, "\(keyword) heard in \(own) of 8 of its recordings")
        let others = try ["alexa", "computer", "jarvis", "smart_mirror"].filter { $0 != keyword }
            .flatMap { try clips($0, count: 4) }.filter { try !detections(model, in: $0).isEmpty }.count
        #expect(others == 0, "\(keyword) fired on \(others) of 12 other keywords' recordings")
    }

    /// Reading and writing a shipped file gives back its bytes: a change to the format (version 2
    /// added companion networks) leaves the models already out there as they were.
    @Test(arguments: ["alexa", "computer", "jarvis", "hey_susi"])
    func aShippedFileWritesBackByteForByte(keyword: String) throws {
        let bytes = Array(try Data(contentsOf: TestPaths.projectRoot.appendingPathComponent("Models/\(keyword).hwks")))
        #expect(try ModelFile.encode(ModelFile.decode(bytes)) == bytes)
    }

    @Test func theDefaultModelLoadsByName() throws {
        let path = try ModelStore.resolve("hey_susi")
        #expect(path.hasSuffix("Models/hey_susi.hwks"))
        let model = try ModelStore.load(path)
        #expect(model.keywords == ["hey susi"])
        #expect(!model.training.command.isEmpty, "the model records how it was trained")
    }
}
