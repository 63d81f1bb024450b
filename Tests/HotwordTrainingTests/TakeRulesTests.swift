import Foundation
import HotwordAudio
import HotwordTestSupport
import HotwordTraining
import Testing

/// The checks `hotword enroll` applies to each take, on real espeak-ng speech in a faint room
/// noise, and the folder the takes are kept in.
@Suite struct TakeRulesTests {
    /// "hey computer" at about −25 dBFS, with 0.5 s of room noise (−65 dBFS) before and after.
    let take: [Float]
    let rules = TakeRules()

    init() throws {
        let folder = try TestPaths.temporaryDirectory("take-rules")
        defer { try? FileManager.default.removeItem(at: folder) }
        let wav = folder.appendingPathComponent("speech.wav")
        try Espeak.speak("hey computer", voice: "en-us", rate: 160, to: wav.path)
        var speech = try AudioFileReader.read(wav).samples
        let bounds = try #require(SpeechBounds.find(in: speech))
        speech = Array(speech[bounds.start..<bounds.end])
        let gain = pow(10, -25 / 20) / Mixing.rms(speech[...])
        take = Self.inRoom(speech.map { $0 * gain }, seed: 1)
    }

    /// `speech` with half a second of faint noise around it and under it.
    static func inRoom(_ speech: [Float], seed: UInt64, noiseLevel: Float = 0.0005) -> [Float] {
        var generator = SeededGenerator(seed: seed)
        let pad = [Float](repeating: 0, count: 8_000)
        return zip(pad + speech + pad, generator.floats(speech.count + 16_000, scale: noiseLevel * 1.73)).map { $0 + $1 }
    }

    func problem(_ samples: [Float], against others: [Double] = []) -> TakeProblem? {
        do {
            _ = try rules.check(samples, against: others)
            return nil
        } catch {
            return error
        }
    }

    @Test func aGoodTakeIsTrimmedToTheSpeechWithAMargin() throws {
        let checked = try rules.check(take)
        #expect((0.5...1.2).contains(checked.speechSeconds), "speech \(checked.speechSeconds) s")
        #expect(abs(checked.levelDecibels + 25) < 1.5, "level \(checked.levelDecibels)")
        #expect(checked.signalToNoiseDecibels > 30)
        let expected = Int(checked.speechSeconds * 16_000) + 2 * 4_800
        #expect(abs(checked.samples.count - expected) <= 320, "\(checked.samples.count) samples, about \(expected) expected")
    }

    @Test func badTakesAreRejectedWithTheReason() throws {
        let quiet = problem(take.map { $0 * 0.003 })
        guard case .tooQuiet(let level, -45) = quiet else { Issue.record("quiet: \(String(describing: quiet))"); return }
        #expect(level < -70)
        #expect(quiet!.description.hasPrefix("too quiet (speech at -7"), "\(quiet!)")
        #expect(quiet!.description.contains(" dBFS, at least -45 needed): speak up"), "\(quiet!)")

        let clipped = problem(take.map { max(-1, min(1, $0 * 40)) })
        guard case .clipped(let count) = clipped else { Issue.record("clipped: \(String(describing: clipped))"); return }
        #expect(count > 100)
        #expect(clipped!.description.contains("lower the input gain"))

        let speech = take[8_000..<(take.count - 8_000)]
        let middle = speech.startIndex + speech.count / 2
        let short = problem(Self.inRoom(Array(speech[(middle - 800)..<(middle + 800)]), seed: 2))
        guard case .tooShort(let seconds, 0.25) = short else { Issue.record("short: \(String(describing: short))"); return }
        #expect(seconds < 0.15)
        #expect(short!.description.hasPrefix("too short ("))

        let long = problem(Self.inRoom(Array(speech) + Array(speech) + Array(speech), seed: 3))
        guard case .tooLong(_, 1.8) = long else { Issue.record("long: \(String(describing: long))"); return }

        #expect(problem(Self.inRoom([], seed: 4)) == .noSpeech)

        var generator = SeededGenerator(seed: 5)
        let noisy = zip(take, generator.floats(take.count, scale: 0.04)).map { $0 + $1 }
        let noise = problem(noisy)
        guard case .tooNoisy(let snr, 12) = noise else { Issue.record("noisy: \(String(describing: noise))"); return }
        #expect(snr < 12)
    }

    @Test func aTakeMuchLongerOrShorterThanTheOthersIsRejected() throws {
        let seconds = try rules.check(take).speechSeconds
        #expect(problem(take, against: [seconds * 0.9, seconds * 1.1]) == nil)
        #expect(problem(take, against: [seconds * 2.5]) == nil, "one other take is no yardstick")
        let longer = problem(take, against: [seconds / 2, seconds / 2.2, seconds / 1.9])
        guard case .unlikeOthers(_, let median) = longer else { Issue.record("longer: \(String(describing: longer))"); return }
        #expect(abs(median - seconds / 2) < 1e-9)
        #expect(longer!.description.hasPrefix("much longer than your other takes"))
        #expect(problem(take, against: [seconds * 2, seconds * 2.1])?.description.hasPrefix("much shorter") == true)
    }

    @Test func takesAreNumberedAndImportedFilesReplaceTheirEarlierCopies() throws {
        let folder = try TestPaths.temporaryDirectory("take-folder")
        defer { try? FileManager.default.removeItem(at: folder) }
        let enrollment = EnrollmentFolder(root: folder.appendingPathComponent("enroll"))
        let checked = try rules.check(take)
        #expect(try enrollment.save(checked).lastPathComponent == "take-001.wav")
        #expect(try enrollment.save(checked).lastPathComponent == "take-002.wav")
        #expect(try enrollment.saveBackground(take).lastPathComponent == "room-001.wav")

        let good = folder.appendingPathComponent("mine.wav"), quiet = folder.appendingPathComponent("quiet.wav")
        try AudioFileWriter.writeWAV(take, to: good, sampleRate: 16_000)
        try AudioFileWriter.writeWAV(take.map { $0 * 0.003 }, to: quiet, sampleRate: 16_000)
        for _ in 0..<2 {
            let imported = try enrollment.importTakes([good, quiet], rules: rules)
            #expect(imported.map { $0.saved?.lastPathComponent } == ["mine.wav", nil])
            guard case .failure(.tooQuiet) = imported[1].result else { Issue.record("\(imported[1].result)"); return }
        }
        #expect(try enrollment.takeFiles().map(\.lastPathComponent) == ["mine.wav", "take-001.wav", "take-002.wav"])
        #expect(try enrollment.takeSpeechSeconds().count == 3)
        #expect(throws: EnrollmentError.self) { try enrollment.importTakes([folder.appendingPathComponent("missing.wav")], rules: rules) }
    }

    @Test func theFolderIsNamedAfterTheKeywordUnderXDGDataHome() {
        #expect(EnrollmentFolder.slug("Hey, Computer!") == "hey_computer")
        #expect(EnrollmentFolder.defaultRoot(keyword: "hey computer", environment: ["XDG_DATA_HOME": "/data", "HOME": "/home/u"]).path
            == "/data/hotword/enroll/hey_computer")
        #expect(EnrollmentFolder.defaultRoot(keyword: "jarvis", environment: ["HOME": "/home/u"]).path
            == "/home/u/.local/share/hotword/enroll/jarvis")
    }
}
