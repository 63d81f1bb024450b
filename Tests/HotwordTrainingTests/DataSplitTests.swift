import HotwordTraining
import Testing

@Suite struct DataSplitTests {
    /// Short, numbered names (`alexa/0.flac` … `alexa/214.flac`) differ only in their last bytes;
    /// a split that hashes them poorly puts all of them in one part.
    @Test func numberedFilesSpreadOverAllPartsInProportion() {
        let split = DataSplit()
        let parts = (0..<1000).map { split.part(of: DataSplit.group(of: "/data/alexa/\($0).flac")) }
        let share = { (part: DataSplit.Part) in Double(parts.filter { $0 == part }.count) / Double(parts.count) }
        #expect(abs(share(.test) - 0.2) < 0.04, "test share \(share(.test))")
        #expect(abs(share(.validation) - 0.1) < 0.03, "validation share \(share(.validation))")
        #expect(abs(share(.train) - 0.7) < 0.04, "train share \(share(.train))")
    }

    @Test func aSpeakerNeverSpansTwoParts() {
        let split = DataSplit()
        for speaker in 0..<50 {
            let parts = Set((0..<20).map { split.part(of: DataSplit.group(of: "/s/speech/SPEAKER\(speaker)_\($0).flac")) })
            #expect(parts.count == 1, "speaker \(speaker) in \(parts)")
        }
    }

    @Test func theSplitIsTheSameOnEveryRun() {
        // Pinned: changing the hash silently moves clips between train and test of every model card.
        let split = DataSplit()
        let names = ["alexa/0", "alexa/1", "alexa/2", "computer/04685ec1-bfbf-4c53-a852-60274a74d80e", "speechocean762/SPEAKER0044"]
        #expect(names.map { split.part(of: $0).rawValue } == Self.pinnedParts, "\(names.map { split.part(of: $0).rawValue })")
    }

    static let pinnedParts = ["test", "train", "test", "train", "train"]
}
