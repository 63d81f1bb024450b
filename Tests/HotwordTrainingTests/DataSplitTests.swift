import HotwordTestSupport
import Foundation
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

    /// A folder that is mostly one voice (a TTS prompt set, one person's recordings) cannot be
    /// split by speaker without landing whole in one part; it is split by file, and the
    /// folders beside it keep their speakers whole.
    @Test func aFolderOfMostlyOneVoiceIsSplitByFile() {
        let prompts = (0..<300).map { "/s/prompts/en_US_f_Allison_prompt\($0).flac" }
            + (0..<40).map { "/s/prompts/en_US_f_Allison_digits_\($0).flac" }
        let readers = (0..<300).map { "/s/readers/SPEAKER\($0 / 10)_\($0).flac" }
        let paths = prompts + readers
        let groups = DataSplit.groups(of: paths)
        #expect(Set(groups[..<prompts.count]).count == prompts.count, "every prompt is its own group")
        #expect(Set(groups[prompts.count...]).count == 30, "readers stay grouped by speaker")
        let split = DataSplit()
        let promptParts = groups[..<prompts.count].map(split.part(of:))
        for part in DataSplit.Part.allCases {
            let share = Double(promptParts.filter { $0 == part }.count) / Double(prompts.count)
            let expected = part == .train ? 0.7 : part == .validation ? 0.1 : 0.2
            #expect(abs(share - expected) < 0.06, "\(part) share of the prompts \(share)")
        }
    }

    /// The real data: asterisk_en (one telephone voice) reaches every part, while no
    /// speechocean762 speaker spans two.
    @Test func theSharedSpeechSplitsTheTelephoneVoiceByFileAndReadersBySpeaker() throws {
        let speech = TestPaths.sharedData.appendingPathComponent("speech").path
        let corpus = try AudioCorpus(folders: [speech], split: DataSplit())
        let telephone = corpus.clips.filter { $0.path.contains("/asterisk_en/") }
        #expect(telephone.count > 500)
        #expect(Set(telephone.map(\.split)) == Set(DataSplit.Part.allCases))
        let validationShare = Double(telephone.filter { $0.split == .validation }.count) / Double(telephone.count)
        #expect(validationShare < 0.2, "asterisk_en validation share \(validationShare)")
        var partsOfSpeaker: [String: Set<DataSplit.Part>] = [:]
        for clip in corpus.clips where clip.path.contains("/speechocean762/") { partsOfSpeaker[clip.group, default: []].insert(clip.split) }
        #expect(partsOfSpeaker.count == 48)
        #expect(partsOfSpeaker.values.allSatisfy { $0.count == 1 })
    }

    @Test func theSplitIsTheSameOnEveryRun() {
        // Pinned: changing the hash silently moves clips between train and test of every model card.
        let split = DataSplit()
        let names = ["alexa/0", "alexa/1", "alexa/2", "computer/04685ec1-bfbf-4c53-a852-60274a74d80e", "speechocean762/SPEAKER0044"]
        #expect(names.map { split.part(of: $0).rawValue } == Self.pinnedParts, "\(names.map { split.part(of: $0).rawValue })")
    }

    static let pinnedParts = ["test", "train", "test", "train", "train"]

    /// A pattern picks the matching files of one folder, so one source can be held out of the
    /// others beside it (`noise/blanket_*`); a pattern that matches nothing is named.
    @Test func aPatternSelectsSomeFilesOfAFolder() throws {
        let noise = TestPaths.sharedData.appendingPathComponent("noise").path
        let blanket = try AudioCorpus(folders: [noise + "/blanket_*"], split: DataSplit())
        let whole = try AudioCorpus(folders: [noise], split: DataSplit())
        #expect(blanket.clips.count == 11)
        #expect(blanket.clips.allSatisfy { ($0.path as NSString).lastPathComponent.hasPrefix("blanket_") })
        #expect(Set(blanket.clips.map(\.path)).isSubset(of: Set(whole.clips.map(\.path))))
        #expect { try AudioCorpus(folders: [noise + "/nothing_*"], split: DataSplit()) } throws: {
            "\($0)" == "\(noise)/nothing_*: no such file or folder (nor files matching it)"
        }
    }
}
