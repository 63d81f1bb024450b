import HotwordSpotting
import Testing

/// When pocketsphinx's spottings hold the phrase: from arrays, no decoder.
@Suite("spotting rule")
struct SpottingRuleTests {
    /// "smart mirror": two pronunciations of "smart" (5 and 4 phones), one of "mirror" (4 phones).
    let rule = SpottingRule(pronunciations: [[["S", "M", "AA", "R", "T"], ["S", "M", "AA", "T"]], [["M", "IH", "R", "ER"]]])

    @Test func aSpottingLastingLongEnoughForItsPhonesHoldsThePhrase() {
        // 9 phones × 50 ms = 0.45 s = frames 100…144; one frame less is too short.
        #expect(rule.holdsPhrase([.init(words: "w0p0 w1p0 ", frames: 100...144)]))
        #expect(!rule.holdsPhrase([.init(words: "w0p0 w1p0", frames: 100...143)]))
        // The shorter pronunciation (8 phones) needs 0.40 s.
        #expect(rule.holdsPhrase([.init(words: "w0p1 w1p0", frames: 100...139)]))
        #expect(!rule.holdsPhrase([.init(words: "w0p1 w1p0", frames: 100...138)]))
    }

    @Test func anyLongEnoughSpottingOfTheWindowCounts() {
        let short = SpottingRule.Spotting(words: "w0p0 w1p0", frames: 10...30)
        #expect(!rule.holdsPhrase([short, short]))
        #expect(rule.holdsPhrase([short, .init(words: "w0p0 w1p0", frames: 150...220)]))
        #expect(!rule.holdsPhrase([]))
    }

    @Test func wordsThatAreNoneOfItsKeyphrasesDoNot() {
        #expect(!rule.holdsPhrase([.init(words: "w1p0 w0p0", frames: 0...200)]))
        #expect(!rule.holdsPhrase([.init(words: "<sil>", frames: 0...200)]))
    }

    @Test func withoutALeastDurationAnySpottingCounts() {
        let lenient = SpottingRule(pronunciations: [[["K", "AH", "M", "P", "Y", "UW", "T", "ER"]]], minimumSecondsPerPhone: 0)
        #expect(lenient.holdsPhrase([.init(words: "w0p0", frames: 7...7)]))
        #expect(lenient.minimumSecondsPerPhone == 0 && rule.minimumSecondsPerPhone == SpottingRule.defaultMinimumSecondsPerPhone)
    }
}
