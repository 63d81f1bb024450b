import Foundation
import HotwordCore
import HotwordTestSupport
@testable import HotwordTraining
import Testing

@Suite struct StreamStartsTests {
    /// Half a second of silence, a tone, a third of a second of silence: speech from 0.5 s.
    let clip = [Float](repeating: 0, count: 8_000) + (0..<8_000).map { 0.3 * sin(Float($0) * 0.3) } + [Float](repeating: 0, count: 5_000)

    @Test(arguments: [0.0, 0.25, 2])
    func eachStreamHasItsClipLeadSecondsInAndASecondAfter(lead: Double) throws {
        let starts = StreamStarts(positives: [clip], names: ["tone"], lead: lead, noise: [], snr: nil, seed: 1)
        let stream = try #require(starts.streams.first)
        let speech = try #require(SpeechBounds.find(in: stream))
        #expect(abs(Double(speech.start) / 16_000 - (lead + 0.5)) < 0.03, "speech from \(speech.start) samples, the clip's own half second in")
        #expect(stream.count == Int(lead * 16_000) + clip.count + 16_000)
        #expect(stream.suffix(21_000).allSatisfy { $0 == 0 }, "the clip's own silence after the tone, then a second's")
        #expect(starts.names == ["tone"])
    }

    @Test func noiseLiesOverTheWholeStreamFromTheFirstSampleInEveryPass() {
        let noise = [NetworkTestData.values(16_000, seed: 3, scale: 0.1)]
        let starts = StreamStarts(positives: [clip], names: ["tone"], lead: 1, noise: noise, snr: 10, seed: 1, passes: 2)
        #expect(starts.streams.count == 2 && starts.names == ["tone", "tone"])
        #expect(starts.streams.allSatisfy { $0.first != 0 && $0.last != 0 })
        #expect(starts.streams[0] != starts.streams[1], "each pass in fresh noise")
    }

    /// People's recordings the shipped pair never trained on (the test part), each placed at 0,
    /// 0.1, 0.25, 0.5, 1 and 2 s of a stream, in a room's noise at 20 dB SNR from the first
    /// sample: heard alike. (Three clips: the speech embedding is slow unoptimised.)
    @Test func aShippedPairHearsAWordFromTheFirstSampleAsAfterAPause() throws {
        let model = try ModelFile.decode(Array(Data(contentsOf: TestPaths.projectRoot.appendingPathComponent("Models/computer.hwks"))))
        let corpus = try AudioCorpus(folders: [TestPaths.sharedData.appendingPathComponent("keywords/computer").path], split: DataSplit())
        let bank = AudioBank.load(Array(corpus.clips(in: .test).prefix(3)) + [TestPaths.sharedData.appendingPathComponent("noise/pcd_bg_noise2.flac").path]) {
            Issue.record("unreadable: \($0)")
        }
        let clips = Array(bank.clips.prefix(3)), room = [bank.clips[3]]
        var missed: [Double: [Int]] = [:]
        for lead in [0, 0.1, 0.25, 0.5, 1, 2] {
            missed[lead] = try StreamStarts(positives: clips, names: Array(bank.paths.prefix(3)), lead: lead, noise: room, snr: 20, seed: 1).missed(by: model)
        }
        #expect(missed[2]!.count <= 1, "heard after a pause: all but \(missed[2]!) of 3")
        for (lead, missedHere) in missed.sorted(by: { $0.key < $1.key }) {
            #expect(missedHere == missed[2], "speech \(lead) s in: missed \(missedHere), after 2 s: \(missed[2]!)")
        }
    }
}
