import Foundation
import HotwordAudio
import HotwordCore
import HotwordModels
import HotwordTestSupport
import Testing

/// `hotword eval` and `hotword tune` on folders of tone clips, with the hand-built tone model:
/// 1 kHz bursts are the keyword; 2 kHz bursts and faint noise are not.
@Suite final class EvalCommandTests {
    let folder: URL
    let modelPath: String
    let positives: String
    let negatives: String
    let keywordsAsNegatives: String

    init() throws {
        folder = try TestPaths.temporaryDirectory("eval-cli")
        modelPath = folder.appendingPathComponent("beep.hwks").path
        try ModelStore.save(ToneModels.model(keyword: "beep", frequency: 1_000), to: modelPath)
        let folder = folder
        func clips(_ name: String, count: Int, frequency: Double?) throws -> String {
            let directory = folder.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for index in 0..<count {
                let tones = frequency.map { [(start: 0.5, frequency: $0)] } ?? []
                try AudioFileWriter.writeWAV(ToneModels.signal(seconds: 1.5, tones: tones),
                                             to: directory.appendingPathComponent("\(index).wav"), sampleRate: 16_000)
            }
            return directory.path
        }
        positives = try clips("positives", count: 8, frequency: 1_000)
        negatives = try clips("negatives", count: 40, frequency: 2_000)
        keywordsAsNegatives = try clips("keywords-as-negatives", count: 20, frequency: 1_000)
    }

    /// Each test gets a fresh suite instance and folder; nothing is left in /tmp.
    deinit { try? FileManager.default.removeItem(at: folder) }

    @Test func tableLimitsAndDETPlot() async throws {
        let plot = folder.appendingPathComponent("det.svg").path
        let result = try await HotwordBinary.run(["eval", "--model", modelPath, "--positives", positives, "--negatives", negatives,
                                                  "--part", "all", "--plot", plot])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("beep: 8 keywords") == true, "\(result.stdout)")
        #expect(lines.filter { $0.hasSuffix("0.00 (0)") }.count == 21, "21 sensitivities, none with a false alarm: \(result.stdout)")
        #expect(lines.contains { $0.hasPrefix("miss rate at ≤ 1 false alarm/h:    0.0 % (threshold") }, "\(result.stdout)")
        let svg = try String(contentsOfFile: plot, encoding: .utf8)
        #expect(svg.hasPrefix("<svg") && svg.contains("thresholds") && svg.contains("sensitivities 0…1"))
    }

    @Test func keywordsAmongTheNegativesAreFalseAlarmsAtEverySensitivity() async throws {
        let result = try await HotwordBinary.run(["eval", "--model", modelPath, "--negatives", keywordsAsNegatives,
                                                  "--part", "all", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any]
        #expect(object["keywords"] as? Int == 0, "\(result.stdout)")
        let points = object["points"] as! [[String: Any]]
        #expect(points.count == 21 && points.allSatisfy { ($0["false_alarms_per_hour"] as! Double) > 100 })
    }

    /// `eval --check-model`: a second network judges each detection; one that hears another tone
    /// drops every false alarm the beeps among the negatives caused. A check for another keyword,
    /// or a threshold without a check, is refused with what was expected.
    @Test func aSecondModelKeepsOnlyTheDetectionsItAlsoHears() async throws {
        let checkPath = folder.appendingPathComponent("beep-at-1500.hwks").path
        try ModelStore.save(ToneModels.model(keyword: "beep", frequency: 1_500), to: checkPath)
        let checked = try await HotwordBinary.run(["eval", "--model", modelPath, "--negatives", keywordsAsNegatives,
                                                   "--part", "all", "--check-model", checkPath, "--check-model-threshold", "0.5"])
        #expect(checked.status == 0, "\(checked.stderr)")
        #expect(checked.stdout.hasPrefix("second stage: \(checkPath) scoring at least 0.5000"), "\(checked.stdout)")
        #expect(checked.stdout.split(separator: "\n").filter { $0.hasSuffix("0.00 (0)") }.count == 21, "\(checked.stdout)")

        let otherPath = folder.appendingPathComponent("ping.hwks").path
        try ModelStore.save(ToneModels.model(keyword: "ping", frequency: 1_500), to: otherPath)
        let other = try await HotwordBinary.run(["eval", "--model", modelPath, "--negatives", negatives, "--check-model", otherPath])
        #expect(other.status != 0 && other.stderr.contains("hears ping, expected the keyword 'beep' alone"), "\(other.stderr)")
        let thresholdAlone = try await HotwordBinary.run(["eval", "--model", modelPath, "--negatives", negatives, "--check-model-threshold", "0.9"])
        #expect(thresholdAlone.status != 0 && thresholdAlone.stderr.contains("--check-model-threshold needs --check-model"), "\(thresholdAlone.stderr)")
    }

    /// `--passes 3`: every clip heard three times, three times the speech without the keyword,
    /// the same false alarms per hour.
    @Test func passesPoolEveryClipHeardSeveralTimes() async throws {
        func measured(passes: Int) async throws -> [String: Any] {
            let result = try await HotwordBinary.run(["eval", "--model", modelPath, "--positives", positives, "--negatives", negatives,
                                                      "--negatives", keywordsAsNegatives, "--part", "all", "--passes", "\(passes)", "--json"])
            #expect(result.status == 0, "\(result.stderr)")
            return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any]
        }
        let one = try await measured(passes: 1), three = try await measured(passes: 3)
        #expect(one["keywords"] as? Int == 8 && three["keywords"] as? Int == 24, "\(three)")
        let hours = (one["negative_hours"] as! Double, three["negative_hours"] as! Double)
        #expect(hours.1 > 2.7 * hours.0 && hours.1 < 3.3 * hours.0, "\(hours)")
        let rate = { (object: [String: Any]) in ((object["points"] as! [[String: Any]])[10]["false_alarms_per_hour"] as! Double) }
        #expect(abs(rate(three) / rate(one) - 1) < 0.1, "20 keyword tones among the negatives in each pass: \(rate(one)), \(rate(three))")

        let table = try await HotwordBinary.run(["eval", "--model", modelPath, "--positives", positives, "--negatives", negatives,
                                                 "--part", "all", "--passes", "2"])
        #expect(table.stdout.hasPrefix("beep: 16 keywords (8 clips × 2 passes) in "), "\(table.stdout)")
        let invalid = try await HotwordBinary.run(["eval", "--model", modelPath, "--negatives", negatives, "--passes", "0"])
        #expect(invalid.status != 0 && invalid.stderr.contains("--passes 0: expected at least 1"), "\(invalid.stderr)")
    }

    /// `--keyword-pause`: keywords straight after the speech before them, so less silence
    /// without the keyword; a bad range is named with what was expected.
    @Test func keywordsCanFollowTheSpeechBeforeThemClosely() async throws {
        func hours(_ extra: [String]) async throws -> Double {
            let result = try await HotwordBinary.run(["eval", "--model", modelPath, "--positives", positives, "--negatives", negatives,
                                                      "--part", "all", "--json"] + extra)
            #expect(result.status == 0, "\(result.stderr)")
            let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any]
            #expect(object["keywords"] as? Int == 8, "\(result.stdout)")
            return object["negative_hours"] as! Double
        }
        let usual = try await hours([]), close = try await hours(["--keyword-pause", "0.1-0.3"])
        #expect(close < usual - 8 * 0.5 / 3600, "8 keywords, each at least 0.5 s closer: \(usual) h, \(close) h")
        for bad in ["0.5", "0.8-0.2", "a-1", "1-"] {
            let invalid = try await HotwordBinary.run(["eval", "--model", modelPath, "--negatives", negatives, "--keyword-pause", bad])
            #expect(invalid.status != 0 && invalid.stderr.contains("--keyword-pause '\(bad)': expected MIN-MAX in seconds"), "\(invalid.stderr)")
        }
    }

    @Test func listsTheClipsBehindMissesAndFalseAlarms() async throws {
        // Keyword clips of the wrong tone are missed; keyword tones among the negatives wake it.
        let mixedPositives = folder.appendingPathComponent("mixed-positives")
        try FileManager.default.createDirectory(at: mixedPositives, withIntermediateDirectories: true)
        for (name, frequency) in [("heard-1", 1_000.0), ("heard-2", 1_000), ("unheard-1", 2_000), ("unheard-2", 2_000)] {
            try AudioFileWriter.writeWAV(ToneModels.signal(seconds: 1.5, tones: [(start: 0.5, frequency: frequency)]),
                                         to: mixedPositives.appendingPathComponent("\(name).wav"), sampleRate: 16_000)
        }
        let result = try await HotwordBinary.run(["eval", "--model", modelPath, "--positives", mixedPositives.path,
                                                  "--negatives", negatives, "--negatives", keywordsAsNegatives,
                                                  "--part", "all", "--list-misses", "--list-false-alarms"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let missed = lines.filter { $0.hasPrefix("missed at ") }
        #expect(missed.count == 2 && missed.allSatisfy { $0.contains("/unheard-") }, "\(result.stdout)")
        let falseAlarms = lines.filter { $0.hasPrefix("false alarm at ") }
        #expect(falseAlarms.count == 20, "\(result.stdout)")
        #expect(falseAlarms.allSatisfy { $0.contains("keywords-as-negatives/") }, "\(result.stdout)")
    }

    /// `hotword tune` of `model` (the beep model by default) on every part of the tone clips.
    private func tuneOnTones(_ flags: [String], out: String, model: String? = nil) async throws -> HotwordBinary.Result {
        try await HotwordBinary.run(["tune", "--model", model ?? modelPath, "--positives", positives, "--negatives", negatives,
                                     "--part", "all", "--out", out] + flags)
    }

    @Test func tuneWritesTheOperatingPointIntoTheModel() async throws {
        let tuned = folder.appendingPathComponent("tuned.hwks").path
        let result = try await tuneOnTones(["--target-fa-per-hour", "1"], out: tuned)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("0.00 false alarms/h, miss rate 0.0 %"), "\(result.stdout)")
        let model = try ModelStore.load(tuned)
        let chosen = try #require(model.training.figures["tuned_threshold"])
        #expect(model.detection.sensitivity == 0.5)
        #expect(abs(Double(model.detection.sensitivityMap.threshold(forSensitivity: 0.5)) - chosen) < 1e-6)
        #expect(chosen == 0.5, "no false alarm at any threshold: the lowest candidate is chosen, \(chosen)")
        // A tenth and ten times the target are met at that threshold too; sensitivity 0 and 1
        // still lie 2 logits either side of it, so --sensitivity does something.
        let map = model.detection.sensitivityMap
        #expect(abs(map.threshold(forSensitivity: 0) - 1 / (1 + exp(-2))) < 1e-5, "\(map)")
        #expect(abs(map.threshold(forSensitivity: 1) - 1 / (1 + exp(2))) < 1e-5, "\(map)")
        let original = try ModelStore.load(modelPath)
        #expect(original.detection.sensitivityMap != model.detection.sensitivityMap, "--out leaves --model as it was")
    }

    /// `--miss-budget` sets sensitivity 0.5 as strict as the keywords allow: every beep still
    /// heard within the budget, at a threshold above the false-alarm target's (0.5, with no false
    /// alarm anywhere). `--positives-part` takes the keywords from one part alone.
    @Test func aMissBudgetSetsTheDefaultAsStrictAsTheKeywordsAllow() async throws {
        let tuned = folder.appendingPathComponent("budget.hwks").path
        let result = try await tuneOnTones(["--miss-budget", "0.25"], out: tuned)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("(set by the miss budget"), "\(result.stdout)")
        let model = try ModelStore.load(tuned)
        let chosen = model.detection.sensitivityMap.threshold(forSensitivity: 0.5)
        #expect(chosen > 0.5 && model.training.figures["tuned_miss_budget"] == 0.25, "\(chosen)")
        let miss = try #require(result.stdout.split(separator: "\n").first { $0.hasPrefix("threshold ") }?
            .split(separator: "miss rate ").last.flatMap { Double($0.dropLast(2)) })
        #expect(miss <= 25, "\(result.stdout)")

        let allParts = try await HotwordBinary.run(["eval", "--model", modelPath, "--positives", positives, "--negatives", negatives,
                                                    "--part", "all", "--json"])
        let testPart = try await HotwordBinary.run(["eval", "--model", modelPath, "--positives", positives, "--negatives", negatives,
                                                    "--part", "all", "--positives-part", "test,validation", "--json"])
        func keywords(_ output: String) throws -> Int? {
            (try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])?["keywords"] as? Int
        }
        #expect(try keywords(allParts.stdout) == 8, "\(allParts.stderr)")
        #expect(try (keywords(testPart.stdout) ?? 8) < 8, "\(testPart.stderr)")

        let noPositives = try await HotwordBinary.run(["tune", "--model", modelPath, "--negatives", negatives, "--miss-budget", "0.1", "--out", tuned])
        #expect(noPositives.status != 0 && noPositives.stderr.contains("--miss-budget 0.1: needs --positives"), "\(noPositives.stderr)")
        let tooMuch = try await HotwordBinary.run(["tune", "--model", modelPath, "--positives", positives, "--negatives", negatives,
                                                   "--miss-budget", "1.5", "--out", tuned])
        #expect(tooMuch.status != 0 && tooMuch.stderr.contains("--miss-budget 1.5: expected a share in (0, 1)"), "\(tooMuch.stderr)")
        let badPart = try await HotwordBinary.run(["eval", "--model", modelPath, "--positives", positives, "--negatives", negatives,
                                                   "--positives-part", "people"])
        #expect(badPart.status != 0 && badPart.stderr.contains("--positives-part 'people': expected train, validation, test or all"), "\(badPart.stderr)")
    }

    /// `--positives-snr` hears the keywords in a stream of their own under the noise at that SNR,
    /// the speech without them at `--snr`: white noise 20 dB over the beeps masks some, 30 dB
    /// under masks none.
    @Test func keywordsAreHeardUnderNoiseOfTheirOwnLevel() async throws {
        let noise = folder.appendingPathComponent("noise")
        try FileManager.default.createDirectory(at: noise, withIntermediateDirectories: true)
        var rng = SeededGenerator(seed: 7)
        try AudioFileWriter.writeWAV((0..<160_000).map { _ in Float.random(in: -0.5...0.5, using: &rng) },
                                     to: noise.appendingPathComponent("white.wav"), sampleRate: 16_000)
        let tuned = folder.appendingPathComponent("noisy.hwks").path
        func missRate(positivesSNR: String) async throws -> Double? {
            let result = try await tuneOnTones(["--noise", noise.path, "--snr", "30", "--positives-snr=\(positivesSNR)"], out: tuned)
            #expect(result.status == 0, "\(result.stderr)")
            return result.stdout.split(separator: "\n").first { $0.hasPrefix("threshold ") }?
                .split(separator: "miss rate ").last.flatMap { Double($0.dropLast(2)) }
        }
        let masked = try #require(try await missRate(positivesSNR: "-20")), clear = try #require(try await missRate(positivesSNR: "30"))
        #expect(masked > 0 && clear == 0, "masked \(masked) %, clear \(clear) %")
        let noPositives = try await HotwordBinary.run(["tune", "--model", modelPath, "--negatives", negatives, "--noise", noise.path,
                                                       "--positives-snr", "0", "--out", tuned])
        #expect(noPositives.status != 0 && noPositives.stderr.contains("--positives-snr 0.0: needs --positives"), "\(noPositives.stderr)")
    }

    /// `--every-source` holds the target on each `--negatives` folder alone: the beeps among the
    /// negatives wake the model, 1200–2000 times an hour on their own source but 400–670 pooled
    /// with the quiet one: against a target of 1000 only a threshold above every beep's score is left.
    @Test func everySourceHoldsTheTargetOnEachFolderAlone() async throws {
        let tuned = folder.appendingPathComponent("every-source.hwks").path
        func tune(_ flags: [String]) async throws -> HotwordBinary.Result {
            try await HotwordBinary.run(["tune", "--model", modelPath, "--negatives", negatives, "--negatives", keywordsAsNegatives,
                                         "--part", "all", "--target-fa-per-hour", "1000", "--out", tuned] + flags)
        }
        let pooled = try await tune([])
        #expect(pooled.status == 0 && pooled.stdout.hasPrefix("threshold 0.5000 "), "\(pooled.stdout) \(pooled.stderr)")
        let everySource = try await tune(["--every-source"])
        #expect(everySource.status == 0 && everySource.stdout.contains("(set by the worst source"), "\(everySource.stdout) \(everySource.stderr)")
        #expect(everySource.stdout.contains("worst source there: "), "\(everySource.stdout)")
        let threshold = try ModelStore.load(tuned).detection.sensitivityMap.threshold(forSensitivity: 0.5)
        #expect(threshold > 0.99, "above every beep's score (the model's bias is logit −5): \(threshold)")
    }

    /// `--check-phrase` stores the second stage in the model; a later tune without it keeps it,
    /// `--no-check-phrase` removes it.
    @Test func tuneStoresWhetherTheModelAsksForThePhraseCheck() async throws {
        let tuned = folder.appendingPathComponent("checked.hwks").path
        func tune(_ flags: [String], model: String) async throws -> KeywordModel {
            let result = try await tuneOnTones(flags, out: tuned, model: model)
            #expect(result.status == 0, "\(result.stderr)")
            return try ModelStore.load(tuned)
        }
        let checked = try await tune(["--check-phrase", "--check-threshold-per-phone", "1e-25"], model: modelPath)
        #expect(checked.detection.phraseCheck == PhraseCheckDefaults(thresholdPerPhone: 1e-25))
        #expect(try await tune([], model: tuned).detection.phraseCheck == PhraseCheckDefaults(thresholdPerPhone: 1e-25))
        #expect(try await tune(["--no-check-phrase"], model: tuned).detection.phraseCheck == nil)
        // Tuned together: a tone model named "good morning computer" fires on every beep among the
        // negatives, in which pocketsphinx never hears those words. The network alone meets the
        // target only above the beeps' scores; with the check, at the checked sweep's lowest
        // threshold, logit −2.
        let phraseModel = folder.appendingPathComponent("good-morning-computer.hwks").path
        try ModelStore.save(ToneModels.model(keyword: "good morning computer", frequency: 1_000), to: phraseModel)
        func tuneOnBeeps(_ flags: [String]) async throws -> Float {
            let result = try await HotwordBinary.run(["tune", "--model", phraseModel, "--negatives", keywordsAsNegatives,
                                                      "--part", "all", "--out", tuned] + flags)
            #expect(result.status == 0, "\(result.stderr)")
            return try ModelStore.load(tuned).detection.sensitivityMap.threshold(forSensitivity: 0.5)
        }
        let alone = try await tuneOnBeeps(["--no-check-phrase"]), together = try await tuneOnBeeps(["--check-phrase"])
        #expect(alone > 0.9 && abs(together - 1 / (1 + exp(2))) < 1e-6, "alone \(alone), together \(together)")

        let bad = try await HotwordBinary.run(["tune", "--model", modelPath, "--positives", positives, "--negatives", negatives,
                                               "--check-phrase", "--check-threshold-per-phone", "3", "--out", tuned])
        #expect(bad.status != 0 && bad.stderr.contains("--check-threshold-per-phone 3.0: expected a number in (0, 1]"), "\(bad.stderr)")
    }

    /// `--source` folders are used whole and reported one by one, `--noise-alone` recordings too;
    /// the worst source is named; the JSON carries the same rows.
    @Test func falseAlarmsArePerSource() async throws {
        let hum = folder.appendingPathComponent("hum")
        try FileManager.default.createDirectory(at: hum, withIntermediateDirectories: true)
        try AudioFileWriter.writeWAV(ToneModels.signal(seconds: 20, tones: [(start: 0, frequency: 300)], length: 20),
                                     to: hum.appendingPathComponent("fan.wav"), sampleRate: 16_000)
        let arguments = ["eval", "--model", modelPath, "--positives", positives, "--source", negatives,
                         "--source", keywordsAsNegatives, "--noise-alone", hum.path + "/f*", "--part", "test"]
        let table = try await HotwordBinary.run(arguments)
        #expect(table.status == 0, "\(table.stderr)")
        let lines = table.stdout.split(separator: "\n").map(String.init)
        let row = { (source: String) in lines.first { $0.hasPrefix("  \(source) ") } ?? "" }
        #expect(row(negatives).hasSuffix("0.00/h (0)"), "\(table.stdout)")
        #expect(row(keywordsAsNegatives).hasSuffix("(20)"), "every clip of a --source is heard, not only its test part: \(table.stdout)")
        #expect(row(hum.path + "/f*").hasSuffix("0.00/h (0)") && row(hum.path + "/f*").contains("0.006 h"), "\(table.stdout)")
        #expect(lines.contains { $0.hasPrefix("worst source: \(keywordsAsNegatives), ") }, "\(table.stdout)")
        #expect(lines.contains { $0.hasSuffix("worst source /h") }, "every row names its worst source's rate: \(table.stdout)")

        let json = try await HotwordBinary.run(arguments + ["--json"])
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as! [String: Any]
        let sources = object["sources_at_default"] as! [[String: Any]]
        #expect(sources.map { $0["source"] as! String } == [negatives, keywordsAsNegatives, hum.path + "/f*"])
        #expect(sources.map { $0["false_alarms"] as! Int } == [0, 20, 0])
        // Each sensitivity's row carries its worst source's rate: at the default, the worst row above.
        let points = object["points"] as! [[String: Any]]
        let atDefault = points.first { $0["sensitivity"] as! Double == 0.5 }
        let worstAtDefault = sources.map { $0["false_alarms_per_hour"] as! Double }.max()!
        #expect(worstAtDefault > 0 && atDefault?["worst_source_false_alarms_per_hour"] as? Double == worstAtDefault, "\(json.stdout)")
        #expect(points.allSatisfy { ($0["worst_source_false_alarms_per_hour"] as! Double) >= ($0["false_alarms_per_hour"] as! Double) - 1e-9 },
                "a source's rate is never below the pooled one's: \(json.stdout)")
        // The sweep of thresholds (the DET curve) comes along, finer than the table, from 0.5 up.
        let curve = object["curve"] as! [[String: Any]]
        let thresholds = curve.map { $0["threshold"] as! Double }, counts = curve.map { $0["false_alarms"] as! Int }
        #expect(curve.count > points.count && thresholds.first == 0.5 && zip(thresholds, thresholds.dropFirst()).allSatisfy { $0 < $1 })
        #expect(counts.first! >= 20, "the 20 keyword tones among the sources wake it at 0.5: \(counts)")
        #expect(curve.allSatisfy { $0["worst_source_false_alarms_per_hour"] is Double })
    }

    /// `--part` takes several parts joined by commas, and names what it expects otherwise.
    @Test func partsCanBeCombined() async throws {
        func keywords(_ part: String) async throws -> Int? {
            let result = try await HotwordBinary.run(["eval", "--model", modelPath, "--positives", positives, "--negatives", negatives,
                                                      "--part", part, "--json"])
            return (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])?["keywords"] as? Int
        }
        let (validation, test, both) = (try await keywords("validation"), try await keywords("test"), try await keywords("validation,test"))
        #expect(both == (validation ?? 0) + (test ?? 0) && both ?? 0 > 0, "\(String(describing: validation)) + \(String(describing: test)) = \(String(describing: both))")
        let invalid = try await HotwordBinary.run(["eval", "--model", modelPath, "--negatives", negatives, "--part", "test,later"])
        #expect(invalid.status != 0 && invalid.stderr.contains("--part 'test,later': expected train, validation, test or all"), "\(invalid.stderr)")
    }

    /// `--check-phrase`: a detection counts only where pocketsphinx also spots the model's phrase
    /// around it. A tone model named "good morning computer" fires on 1 kHz bursts, in which
    /// pocketsphinx never hears those words. (It does hear "beep" in them: a short phrase is a
    /// lenient check.)
    @Test func theSecondStageDropsWhatPocketsphinxDoesNotHear() async throws {
        let phraseModel = folder.appendingPathComponent("good-morning-computer.hwks").path
        try ModelStore.save(ToneModels.model(keyword: "good morning computer", frequency: 1_000), to: phraseModel)
        let arguments = ["eval", "--model", phraseModel, "--negatives", keywordsAsNegatives, "--part", "all", "--json"]
        func falseAlarms(_ extra: [String]) async throws -> [Double] {
            let result = try await HotwordBinary.run(arguments + extra)
            #expect(result.status == 0, "\(result.stderr)")
            let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any]
            return (object["points"] as! [[String: Any]]).map { $0["false_alarms_per_hour"] as! Double }
        }
        let alone = try await falseAlarms([]), checked = try await falseAlarms(["--check-phrase"])
        #expect(alone.allSatisfy { $0 > 100 }, "\(alone)")
        #expect(checked.allSatisfy { $0 == 0 }, "\(checked)")
    }

    /// …and keeps what it hears: people saying "computer", found by the shipped model.
    @Test func theSecondStageKeepsWhatPocketsphinxHears() async throws {
        let people = folder.appendingPathComponent("people")
        try FileManager.default.createDirectory(at: people, withIntermediateDirectories: true)
        let recordings = TestPaths.sharedData.appendingPathComponent("keywords/computer")
        let names = try FileManager.default.contentsOfDirectory(atPath: recordings.path).filter { $0.hasSuffix(".flac") }.sorted()
        for name in names.prefix(6) {
            try FileManager.default.createSymbolicLink(at: people.appendingPathComponent(name), withDestinationURL: recordings.appendingPathComponent(name))
        }
        func missed(_ extra: [String]) async throws -> Int {
            let result = try await HotwordBinary.run(["eval", "--model", "computer", "--positives", people.path, "--negatives", negatives,
                                                      "--part", "all", "--list-misses"] + extra)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("0.50         ") && result.stdout.contains("6 keywords"), "\(result.stdout)")
            return result.stdout.split(separator: "\n").filter { $0.hasPrefix("missed at ") }.count
        }
        let alone = try await missed([]), checked = try await missed(["--check-phrase"])
        #expect(alone <= 1, "the shipped model hears these recordings")
        #expect(checked >= alone && checked <= 3, "a second stage can only drop detections, and pocketsphinx hears most of these (\(checked) of 6 missed)")
    }

    /// A missing folder is a failure at run time, not a wrong command line: one line, no usage.
    @Test func aMissingFolderIsNamed() async throws {
        let missing = folder.appendingPathComponent("nowhere").path
        let result = try await HotwordBinary.run(["eval", "--model", modelPath, "--negatives", missing])
        #expect(result.status == 1)
        #expect(result.stderr.contains(missing), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1 && !result.stderr.lowercased().contains("usage"), "\(result.stderr)")
    }
}
