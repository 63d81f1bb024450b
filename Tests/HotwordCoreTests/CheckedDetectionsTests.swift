import HotwordCore
import HotwordTestSupport
import Testing

/// `CheckedDetections` from arrays: detections held until the second after them has come, then
/// judged by their keyword's check on the 3 s around them.
@Suite struct CheckedDetectionsTests {
    static func detection(_ keyword: String, at time: Double) -> Detection { Detection(keyword: keyword, time: time, score: 0.9) }

    /// A beep at 1 s with a ping after it, a beep alone at 5 s; 8 s of audio in 0.5 s blocks.
    static let stream = ToneModels.signal(seconds: 8, tones: [(1, 1_000), (1.1, 1_500), (5, 1_000)], length: 0.06)

    @Test func aDetectionIsJudgedOnceTheSecondAfterItHasComeOnTheWindowAroundIt() {
        let check = ToneCheck()
        let checked = CheckedDetections(checks: ["beep": check])
        var verdicts: [(block: Int, verdict: CheckedDetections.Verdict)] = []
        for (block, start) in stride(from: 0, to: Self.stream.count, by: 8_000).enumerated() {
            let time = Double(start) / 16_000
            let found = [1.07, 5.07].filter { $0 >= time && $0 < time + 0.5 }.map { Self.detection("beep", at: $0) }
            verdicts += checked.append(Array(Self.stream[start..<(start + 8_000)]), detections: found).map { (block, $0) }
        }
        #expect(verdicts.map(\.verdict.kept) == [true, false])
        // Reported in the block that brought the second after it (2.07 s and 6.07 s).
        #expect(verdicts.map(\.block) == [4, 12])
        #expect(check.windows.count == 2)
        let second = Array(Self.stream[Int(3.07 * 16_000)..<Int(6.07 * 16_000)])
        #expect(check.windows.last == second, "2 s before to 1 s after the detection")
        #expect(check.windows.first?.count == Int(2.07 * 16_000), "from the stream's start")
    }

    @Test func keywordsWithoutACheckPassAtOnceAndTheEndJudgesOnWhatThereIs() {
        let checked = CheckedDetections(checks: ["beep": ToneCheck()])
        let head = Array(Self.stream[..<Int(1.5 * 16_000)])
        let now = checked.append(head, detections: [Self.detection("boop", at: 0.4), Self.detection("beep", at: 1.07)])
        #expect(now.map(\.detection.keyword) == ["boop"] && now.allSatisfy(\.kept))
        #expect(checked.finish().map(\.kept) == [true], "the ping at 1.1 s is in what there is")
        #expect(checked.finish().isEmpty, "the next stream starts afresh")
    }

    @Test func aCheckThatFailsKeepsTheDetectionAndSaysWhy() {
        let checked = CheckedDetections(checks: ["beep": ToneCheck(failing: true)])
        _ = checked.append(Array(Self.stream[..<16_000]), detections: [Self.detection("beep", at: 0.2)])
        let verdicts = checked.append(Array(Self.stream[16_000..<32_000]), detections: [])
        #expect(verdicts.map(\.kept) == [true] && verdicts.map(\.failure) == ["the check's engine is gone"])
    }
}
