import HotwordCore
import HotwordTestSupport
import Testing

/// `CheckUnlessSure` from arrays: the tone model stands in for the network, `ToneCheck` (a ping
/// at 1.5 kHz) for pocketsphinx.
@Suite struct CheckUnlessSureTests {
    static let model = ToneModels.model(keyword: "beep", frequency: 1_000)
    /// 3 s windows: a loud beep, a ping, and faint noise alone.
    static let beep = ToneModels.signal(seconds: 3, tones: [(1.5, 1_000)])
    static let ping = ToneModels.signal(seconds: 3, tones: [(1.5, 1_500)])
    static let quiet = ToneModels.signal(seconds: 3, tones: [])

    @Test func aWindowTheNetworkIsSureOfStandsWithoutTheCheck() throws {
        let check = ToneCheck()
        let stage = CheckUnlessSure(check: check, model: Self.model, keyword: "beep", sureScore: 0.9)
        #expect(try stage.peakScore(in: Self.beep) >= 0.9, "the beep is what the network is sure of")
        #expect(try stage.peakScore(in: Self.quiet) < 0.1)
        #expect(try stage.accepts([Self.beep, Self.ping, Self.quiet]) == [true, true, false])
        #expect(check.windows == [Self.ping, Self.quiet], "only the windows the network is unsure of are asked, in order")
    }

    @Test func aScoreNoWindowReachesAsksTheCheckEverywhere() throws {
        let check = ToneCheck()
        let stage = CheckUnlessSure(check: check, model: Self.model, keyword: "beep", sureScore: 1)
        #expect(try stage.accepts([Self.beep, Self.ping]) == [false, true], "the beep has no ping: the check says no")
        #expect(check.windows.count == 2)
    }

    /// The model says how sure is sure; without that, every detection is checked.
    @Test func theModelNamesTheScore() {
        var asking = Self.model
        asking.detection.phraseCheck = PhraseCheckDefaults(thresholdPerPhone: 1e-6, sureScore: 0.97)
        var checking = ToneModels.model(keyword: "boop", frequency: 2_000)
        checking.detection.phraseCheck = PhraseCheckDefaults(thresholdPerPhone: 1e-6)
        let stages = KeywordModel.secondStages(["beep": ToneCheck(), "boop": ToneCheck(), "other": ToneCheck()], of: [asking, checking])
        #expect(stages["other"] is ToneCheck, "a check for a keyword no model has is left for the detector to refuse")
        #expect((stages["beep"] as? CheckUnlessSure)?.sureScore == 0.97)
        #expect(stages["boop"] is ToneCheck)
    }
}
