import Foundation
import HotwordAudio
import HotwordCore
import HotwordModels
import HotwordTestSupport
import Testing

/// `hotword detect` on files written by the test, with a hand-built tone model.
@Suite final class DetectCommandTests {
    let folder: URL
    let modelPath: String
    let tonePath: String

    init() throws {
        folder = try TestPaths.temporaryDirectory("detect-cli")
        modelPath = folder.appendingPathComponent("beep.hwks").path
        tonePath = folder.appendingPathComponent("tones.wav").path
        try ModelStore.save(ToneModels.model(keyword: "beep", frequency: 1_000), to: modelPath)
        try AudioFileWriter.writeWAV(ToneModels.signal(seconds: 5, tones: [(1, 1_000), (3, 1_000)]),
                                     to: URL(fileURLWithPath: tonePath), sampleRate: 16_000)
    }

    /// Each test gets a fresh suite instance and folder; nothing is left in /tmp.
    deinit { try? FileManager.default.removeItem(at: folder) }

    @Test func printsOneLinePerDetectionAndKeepsGoingPastABadFile() async throws {
        let missing = folder.appendingPathComponent("missing.wav").path
        let result = try await HotwordBinary.run(["detect", tonePath, missing, tonePath, "--model", modelPath])
        let lines = result.stdout.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
        #expect(lines.count == 4, "two tones in each of two readable files: \(result.stdout)")
        for line in lines {
            #expect(line.count == 4 && line[0] == tonePath && line[2] == "beep")
            let time = Double(line[1]) ?? -1
            #expect((1...1.5).contains(time) || (3...3.5).contains(time), "time \(line[1])")
        }
        #expect(result.stderr.contains(missing), "the unreadable file is named: \(result.stderr)")
        #expect(result.status == 1)
    }

    @Test func jsonLinesAndScoreTrace() async throws {
        let scores = folder.appendingPathComponent("scores.csv").path
        let result = try await HotwordBinary.run(["detect", tonePath, "--model", modelPath, "--json", "--scores", scores])
        #expect(result.status == 0, "\(result.stderr)")
        let objects = try result.stdout.split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
        }
        #expect(objects.count == 2)
        #expect(objects.allSatisfy { $0["keyword"] as? String == "beep" && ($0["score"] as? Double ?? 0) > 0.8 })
        let rows = try String(contentsOfFile: scores, encoding: .utf8).split(separator: "\n")
        #expect(rows.first == "file,time,keyword,raw,smoothed")
        #expect(rows.count > 100, "one row per network output (~50 per second)")
    }

    /// `detect` decodes and detects block by block; reading each file whole and running the
    /// detector over it in one piece must give the same detections and the same scores. Real
    /// recordings: one clip, and several joined with pauses (many blocks long) at 16 kHz and
    /// resampled to 44.1 kHz, which the command converts back while streaming.
    @Test func streamingFindsWhatTheWholeFileFinds() async throws {
        let clipFolder = TestPaths.sharedData.appendingPathComponent("keywords/computer")
        let clips = try FileManager.default.contentsOfDirectory(at: clipFolder, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "flac" }.sorted { $0.path < $1.path }.prefix(4)
        try #require(clips.count == 4, "needs recordings of 'computer' in \(clipFolder.path)")
        var joined: [Float] = []
        for clip in clips { joined += try AudioFileReader.read(clip).samples + [Float](repeating: 0, count: 16_000) }
        let joined16 = folder.appendingPathComponent("joined.wav"), joined44 = folder.appendingPathComponent("joined-44k.wav")
        try AudioFileWriter.writeWAV(joined, to: joined16, sampleRate: 16_000)
        try AudioFileWriter.writeWAV(try Resampler.convert(joined, from: 16_000, to: 44_100), to: joined44, sampleRate: 44_100)
        let files = [clips[clips.startIndex].path, joined16.path, joined44.path]
        let scoresFile = folder.appendingPathComponent("scores.csv")

        let result = try await HotwordBinary.run(["detect"] + files + ["--model", "computer", "--json", "--scores", scoresFile.path])
        #expect(result.status == 0, "\(result.stderr)")
        let printed = try result.stdout.split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
        }
        let rows = try String(contentsOf: scoresFile, encoding: .utf8).split(separator: "\n").dropFirst()
            .map { $0.split(separator: ",").map(String.init) }

        var expectedDetections: [(file: String, Detection)] = []
        var expectedScores: [(file: String, ScoreEvent)] = []
        let model = try ModelStore.load(named: "computer")
        for file in files {
            let detector = try Detector(models: [model])
            detector.onScore = { expectedScores.append((file, $0)) }
            let whole = try AudioFileReader.read(URL(fileURLWithPath: file)).samples
            expectedDetections += detector.process(whole).map { (file, $0) }
        }
        #expect(expectedDetections.count >= clips.count, "the wake word is found in the clips: \(expectedDetections)")
        #expect(printed.count == expectedDetections.count, "\(result.stdout)")
        for (line, (file, detection)) in zip(printed, expectedDetections) {
            #expect(line["file"] as? String == file && line["keyword"] as? String == detection.keyword)
            #expect(abs((line["time"] as? Double ?? -1) - detection.time) <= 0.0005, "\(line) against \(detection)")
            #expect(abs((line["score"] as? Double ?? -1) - Double(detection.score)) <= 0.0005, "\(line) against \(detection)")
        }
        // Every score, exactly: Float's text form reads back as the same value.
        #expect(rows.count == expectedScores.count)
        let mismatched = zip(rows, expectedScores).filter { row, expected in
            row != [expected.file, row[1], expected.1.keyword, "\(expected.1.raw)", "\(expected.1.smoothed)"]
                || abs((Double(row[1]) ?? -1) - expected.1.time) > 0.0005
        }
        #expect(mismatched.isEmpty, "\(mismatched.count) of \(rows.count) scores differ, the first: \(mismatched.first.map { "\($0)" } ?? "")")
    }

    @Test func sensitivityZeroHearsLessThanOne() async throws {
        let quiet = folder.appendingPathComponent("quiet.wav").path
        try AudioFileWriter.writeWAV(ToneModels.signal(seconds: 3, tones: [(1, 1_000)], amplitude: 0.02),
                                     to: URL(fileURLWithPath: quiet), sampleRate: 16_000)
        let strict = try await HotwordBinary.run(["detect", quiet, "--model", modelPath, "--sensitivity", "0"])
        let lenient = try await HotwordBinary.run(["detect", quiet, "--model", modelPath, "--sensitivity", "1"])
        #expect(strict.stdout.isEmpty && strict.status == 0)
        #expect(lenient.stdout.contains("beep"))
    }

    /// `--sensitivity NAME=VALUE`, as `run --help`, the README and the model cards write it: the
    /// name in either spelling, and a plain value for the keywords not named.
    @Test func sensitivityIsGivenPerKeywordByName() async throws {
        let quiet = folder.appendingPathComponent("quiet.wav").path
        try AudioFileWriter.writeWAV(ToneModels.signal(seconds: 6, tones: [(1, 1_000), (4, 2_000)], amplitude: 0.02),
                                     to: URL(fileURLWithPath: quiet), sampleRate: 16_000)
        let highModel = folder.appendingPathComponent("high.hwks").path
        try ModelStore.save(ToneModels.model(keyword: "high beep", frequency: 2_000), to: highModel)
        func heard(_ sensitivity: String...) async throws -> [String] {
            let result = try await HotwordBinary.run(["detect", quiet, "--model", modelPath, "--model", highModel]
                                                     + sensitivity.flatMap { ["--sensitivity", $0] })
            #expect(result.status == 0, "\(sensitivity): \(result.stderr)")
            return result.stdout.split(separator: "\n").map { String($0.split(separator: "\t")[2]) }
        }
        #expect(try await heard("beep=1,high_beep=0") == ["beep"])
        #expect(try await heard("high beep=1", "0") == ["high beep"])
        #expect(try await heard("0,1") == ["high beep"])
        #expect(try await heard("1") == ["beep", "high beep"])

        let unknown = try await HotwordBinary.run(["detect", quiet, "--model", modelPath, "--sensitivity", "hey_susi=0.8"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.hasPrefix("Error: --sensitivity 'hey_susi=0.8': no keyword 'hey_susi' in the models loaded ('beep')\nUsage: hotword detect "),
                "\(unknown.stderr)")
    }

    /// A wrong command line ends with status 64 and the usage; a model that does not load is a
    /// wrong model (78, as in the README's table): one line naming the file, no usage.
    @Test func badArgumentsAndModelsGiveOneClearLine() async throws {
        let badSensitivity = try await HotwordBinary.run(["detect", tonePath, "--model", modelPath, "--sensitivity", "2"])
        #expect(badSensitivity.status == 64)
        #expect(badSensitivity.stderr.hasPrefix("Error: --sensitivity '2': expected NAME=VALUE (hey_susi=0.8) or a value, each in [0, 1]"))
        #expect(badSensitivity.stderr.contains("Usage: hotword detect "), "the command's usage, not the root's: \(badSensitivity.stderr)")

        let corrupt = folder.appendingPathComponent("corrupt.hwks").path
        var bytes = try Data(contentsOf: URL(fileURLWithPath: modelPath))
        bytes[bytes.count - 20] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: corrupt))
        let result = try await HotwordBinary.run(["detect", tonePath, "--model", corrupt])
        #expect(result.status == 78)
        #expect(result.stderr.hasPrefix("Error: \(corrupt): checksum mismatch"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1 && !result.stderr.lowercased().contains("usage"), "\(result.stderr)")

        let unknown = try await HotwordBinary.run(["detect", tonePath, "--model", "no_such_model"])
        #expect(unknown.stderr.contains("no model named 'no_such_model'"))
        let misspelt = try await HotwordBinary.run(["detect", tonePath, "--model", "computr"])
        #expect(misspelt.status == 78)
        #expect(misspelt.stderr.hasPrefix("Error: no model named 'computr' (did you mean 'computer'? the models: alexa, computer, hey_susi, jarvis)"),
                "\(misspelt.stderr)")
    }

    /// `--check-phrase` keeps what pocketsphinx hears: a person saying "computer", found by the
    /// shipped model — alone in its file, so the window is cut short at both ends, and in a
    /// longer file with pauses around it.
    @Test func theSecondStageKeepsAPersonSayingThePhrase() async throws {
        let clip = TestPaths.sharedData.appendingPathComponent("keywords/computer/24678e0b-4c73-4157-8a1f-50cc8f7b4020.flac")
        let padded = folder.appendingPathComponent("padded.wav")
        let pause = [Float](repeating: 0, count: 32_000)
        try AudioFileWriter.writeWAV(pause + AudioFileReader.read(clip).samples + pause + pause, to: padded, sampleRate: 16_000)
        let arguments = ["detect", clip.path, padded.path, "--model", "computer"]
        let alone = try await HotwordBinary.run(arguments), checked = try await HotwordBinary.run(arguments + ["--check-phrase"])
        #expect(alone.status == 0 && checked.status == 0, "\(alone.stderr)\(checked.stderr)")
        #expect(alone.stdout.split(separator: "\n").count == 2, "one detection in each file: \(alone.stdout)")
        #expect(checked.stdout == alone.stdout)
    }

    /// …and drops what it does not: a tone model named "good morning computer" fires on 1 kHz
    /// bursts, in which pocketsphinx never hears those words (it does hear "beep" in them).
    @Test func theSecondStageDropsWhatPocketsphinxDoesNotHear() async throws {
        let phraseModel = folder.appendingPathComponent("good-morning-computer.hwks").path
        try ModelStore.save(ToneModels.model(keyword: "good morning computer", frequency: 1_000), to: phraseModel)
        let arguments = ["detect", tonePath, "--model", phraseModel]
        let alone = try await HotwordBinary.run(arguments), checked = try await HotwordBinary.run(arguments + ["--check-phrase", "--verbose"])
        #expect(alone.status == 0 && checked.status == 0, "\(alone.stderr)\(checked.stderr)")
        #expect(alone.stdout.split(separator: "\n").count == 2, "\(alone.stdout)")
        #expect(checked.stdout.isEmpty, "\(checked.stdout)")
        let dropped = checked.stderr.split(separator: "\n").filter { $0.contains("dropped") }
        #expect(dropped.count == 2 && dropped.allSatisfy { $0.contains(tonePath) && $0.contains("good morning computer") }, "\(checked.stderr)")

        // A model that asks for the check (`hotword tune --check-phrase`) gets it unasked, as in
        // `hotword run`; --no-check-phrase turns it off.
        var asking = ToneModels.model(keyword: "good morning computer", frequency: 1_000)
        asking.detection.phraseCheck = PhraseCheckDefaults(thresholdPerPhone: 1e-20)
        try ModelStore.save(asking, to: phraseModel)
        let byDefault = try await HotwordBinary.run(arguments), off = try await HotwordBinary.run(arguments + ["--no-check-phrase"])
        #expect(byDefault.status == 0 && byDefault.stdout.isEmpty, "\(byDefault.stdout)\(byDefault.stderr)")
        #expect(off.stdout == alone.stdout, "\(off.stdout)")
    }

    /// A keyword pocketsphinx cannot pronounce is a wrong setup, named in one line: "zorblax" is
    /// not in the CMU dictionary, and there is no espeak-ng in an empty PATH to read it.
    @Test func aKeywordWithoutPronunciationIsNamed() async throws {
        let zorblax = folder.appendingPathComponent("zorblax.hwks").path
        try ModelStore.save(ToneModels.model(keyword: "zorblax", frequency: 1_000), to: zorblax)
        let result = try await HotwordBinary.run(["detect", tonePath, "--model", zorblax, "--check-phrase"],
                                                 environment: ["PATH": folder.path])
        #expect(result.status == 78)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("zorblax") && result.stderr.contains("espeak-ng"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
    }
}
