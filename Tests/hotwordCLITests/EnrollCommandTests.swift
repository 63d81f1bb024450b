import Foundation
import HotwordAudio
import HotwordModels
import HotwordTestSupport
import Testing

/// `hotword enroll`: takes from files and from a real ALSA capture device (the file plugin), the
/// checks that reject bad takes, and a whole (tiny) enrollment whose model is then used.
@Suite("hotword enroll")
struct EnrollCommandTests {
    /// "hey computer" by espeak-ng's en-us voice at `rate` words per minute, at about −25 dBFS
    /// in a faint room noise (−65 dBFS), with `pad` seconds of it before and after.
    static func take(_ text: String = "hey computer", rate: Int, pad: Double = 0.4, seed: UInt64, in folder: URL) throws -> [Float] {
        let wav = folder.appendingPathComponent("espeak-\(UUID().uuidString).wav")
        defer { try? FileManager.default.removeItem(at: wav) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/espeak-ng")
        process.arguments = ["-v", "en-us", "-s", "\(rate)", "-w", wav.path, text]
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "espeak-ng \(text)")
        let speech = try AudioFileReader.read(wav).samples
        let peak = speech.map(abs).max() ?? 1
        let padding = [Float](repeating: 0, count: Int(pad * 16_000))
        var generator = SeededGenerator(seed: seed)
        let signal = padding + speech.map { $0 * 0.3 / peak } + padding
        return zip(signal, generator.floats(signal.count, scale: 0.0009)).map { $0 + $1 }
    }

    static func write(_ samples: [Float], _ name: String, in folder: URL) throws -> URL {
        let url = folder.appendingPathComponent(name)
        try AudioFileWriter.writeWAV(samples, to: url, sampleRate: 16_000)
        return url
    }

    /// Ten takes (espeak-ng at ten speaking rates, standing in for one person's voice), a small
    /// training: the model is written with its record, and hears another take of the phrase but
    /// not an unrelated sentence in the same voice.
    ///
    /// A training this small (24 synthetic clips of each kind) is a lottery over seeds: of five,
    /// three learnt the phrase apart from the voice, one learnt nothing. `--quick`'s 24 channels and
    /// early stopping on six validation clips made seed 1's margin hang on OpenBLAS's kernel
    /// (2.2 logits on SkylakeX, 0.36 on Prescott, which a CPU OpenBLAS 0.3.21 does not know falls
    /// back to). 32 channels and every one of 12 epochs (`--patience 12`) give seed 1 margins of
    /// 1.7–6.7 logits on SkylakeX, Haswell, Sandybridge and Prescott: a change that loses it is a
    /// change to training worth a look.
    @Test func enrollsFromFilesAndTheModelHearsAHeldOutTake() async throws {
        let folder = try TestPaths.temporaryDirectory("enroll-files")
        defer { try? FileManager.default.removeItem(at: folder) }
        let takes = try stride(from: 130, through: 190, by: 6).prefix(10).map { rate in
            try Self.write(try Self.take(rate: rate, seed: UInt64(rate), in: folder), "take-at-\(rate).wav", in: folder)
        }
        let model = folder.appendingPathComponent("hey_computer.hwks").path

        let result = try await HotwordBinary.run(["enroll", "--keyword", "hey computer", "--files"] + takes.map(\.path)
            + ["--dir", folder.appendingPathComponent("enroll").path, "--out", model, "--synthetic", "24", "--engine", "espeak-ng",
               "--epochs", "12", "--patience", "12", "--hard-negative-rounds", "0", "--threads", "2"],
            timeout: .seconds(300))

        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("wrote \(model): \"hey computer\" from 8 of your takes and "), "\(result.stdout)")
        #expect(result.stdout.contains("use it: hotword run --model \(model)"))
        let written = try ModelStore.load(model)
        #expect(written.keywords == ["hey computer"])
        #expect(written.training.command.hasPrefix("hotword enroll --keyword 'hey computer' --files "))
        #expect(written.training.data.contains { $0.hasPrefix("takes: 8 trained on (take-at-130.wav, ") && $0.contains("2 held out for tuning (take-at-154.wav, take-at-184.wav)") },
                "\(written.training.data)")
        #expect(written.training.figures["takes_held_out"] == 2)

        let heldOut = try Self.write(try Self.take(rate: 158, pad: 1, seed: 99, in: folder), "another-take.wav", in: folder)
        let unrelated = try Self.write(try Self.take("good morning everyone", rate: 160, pad: 1, seed: 98, in: folder), "unrelated.wav", in: folder)
        // A small model's default threshold sits on a knife's edge (OpenBLAS kernels differ by
        // CPU, and so does the model): ask that the phrase outscores the sentence by a logit
        // (scores near 1 crowd together: 0.99 and 0.90 are 2.2 logits apart), and that the
        // sentence does not wake it.
        let scores = folder.appendingPathComponent("scores.csv").path
        let detect = try await HotwordBinary.run(["detect", heldOut.path, unrelated.path, "--model", model, "--scores", scores])
        #expect(detect.status == 0, "\(detect.stderr)")
        let rows = try String(contentsOfFile: scores, encoding: .utf8).split(separator: "\n").dropFirst().map { $0.split(separator: ",") }
        func peak(_ file: URL) -> Float { rows.filter { $0[0] == file.path }.compactMap { Float($0[4]) }.max() ?? 0 }
        func logit(_ p: Float) -> Float { log(p / (1 - p)) }
        #expect(logit(peak(heldOut)) > logit(peak(unrelated)) + 1, "held-out take \(peak(heldOut)), unrelated sentence \(peak(unrelated))\n\(result.stdout)")
        let files = detect.stdout.split(separator: "\n").map { $0.split(separator: "\t")[0] }
        #expect(!files.contains { $0 == unrelated.path }, "the unrelated sentence is not heard: \(detect.stdout)")
    }

    @Test func badFilesAreRejectedWithTheReasonAndTooFewTakesStopBeforeTraining() async throws {
        let folder = try TestPaths.temporaryDirectory("enroll-cli")
        defer { try? FileManager.default.removeItem(at: folder) }
        let good = try Self.take(rate: 160, seed: 1, in: folder)
        let files = [
            try Self.write(good, "good.wav", in: folder),
            try Self.write(good.map { $0 * 0.002 }, "quiet.wav", in: folder),
            try Self.write(good.map { max(-1, min(1, $0 * 30)) }, "clipped.wav", in: folder),
            // 0.4 s of room, 0.12 s from the middle of the speech, 0.4 s of room
            try Self.write(Array(good.prefix(6_400)) + Array(good[(good.count / 2 - 1_000)..<(good.count / 2 + 1_000)]) + Array(good.suffix(6_400)),
                           "short.wav", in: folder),
        ]
        let result = try await HotwordBinary.run(["enroll", "--keyword", "hey computer", "--files"] + files.map(\.path)
            + ["--dir", folder.appendingPathComponent("enroll").path])

        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 4, "\(result.stdout)")
        #expect(lines.first { $0.contains("good.wav") }?.contains("saved as good.wav") == true, "\(result.stdout)")
        #expect(lines.first { $0.contains("quiet.wav") }?.contains("not used: too quiet") == true, "\(result.stdout)")
        #expect(lines.first { $0.contains("clipped.wav") }?.contains("not used: clipped") == true, "\(result.stdout)")
        #expect(lines.first { $0.contains("short.wav") }?.contains("not used: too short") == true, "\(result.stdout)")
        #expect(result.status != 0)
        #expect(result.stderr == "Error: \(folder.path)/enroll/takes holds 1 usable take of the wake word; at least 3 are needed: "
            + "record more (--samples) or give more files (--files)\n")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("enroll/synthetic").path), "nothing synthesised")
    }

    /// A real capture device replaying a paced stream: room noise, then three takes and a
    /// clipped one, each followed by a pause. Three takes are saved, the clipped one is not.
    @Test func recordsTakesFromTheMicrophoneAndSaysWhyATakeWasNotUsed() async throws {
        let folder = try TestPaths.temporaryDirectory("enroll-record")
        defer { try? FileManager.default.removeItem(at: folder) }
        let microphone = try PacedMicrophone(folder: folder, speed: 4)
        defer { microphone.close() }
        var generator = SeededGenerator(seed: 9)
        let pause = { (seconds: Double) in generator.floats(Int(seconds * 16_000), scale: 0.0009) }
        let takes = try [150, 170, 160].enumerated().map { try Self.take(rate: $1, pad: 0, seed: UInt64($0 + 2), in: folder) }
        microphone.say(pause(2.5))
        for (index, take) in takes.enumerated() {
            microphone.say(take + pause(1.5))
            if index == 0 { microphone.say(take.map { max(-1, min(1, $0 * 30)) } + pause(1.5)) }
        }
        microphone.say(pause(2))
        let dir = folder.appendingPathComponent("enroll")

        let result = try await HotwordBinary.run(["enroll", "--keyword", "hey computer", "--device", microphone.deviceName,
                                                  "--samples", "3", "--record-only", "--dir", dir.path])

        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("Recording from '\(ALSATestDevices.captureName)") == true, "\(result.stdout)")
        #expect(lines.filter { $0 == "Say \"hey computer\" (2 of 3)…" }.count == 2, "asked again after the clipped take: \(result.stdout)")
        #expect(lines.contains { $0.hasPrefix("  not used: clipped (") && $0.hasSuffix("Say it again.") }, "\(result.stdout)")
        #expect(lines.filter { $0.hasPrefix("  saved take-00") }.count == 3)
        #expect(lines.last == "3 takes in \(dir.path)/takes; train with: hotword enroll --keyword 'hey computer' --samples 0 --dir \(dir.path)")
        let saved = try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("takes").path).sorted()
        #expect(saved == ["take-001.wav", "take-002.wav", "take-003.wav"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("background").path) == ["room-001.wav"])
        // Each take is the speech said, give or take the margins kept around it (up to 0.3 s a side).
        for (name, take) in zip(saved, takes) {
            let recorded = try AudioFileReader.read(dir.appendingPathComponent("takes/\(name)")).samples.count
            #expect(recorded > take.count - 3_200 && recorded < take.count + 9_600, "\(name): \(recorded) samples for \(take.count) said")
        }
    }

    @Test func aSilentMicrophoneIsReportedInOneLine() async throws {
        let folder = try TestPaths.temporaryDirectory("enroll-silent")
        defer { try? FileManager.default.removeItem(at: folder) }
        // Digital silence (the test device's default input), replayed faster than real time.
        _ = ALSATestDevices.configPath
        let result = try await HotwordBinary.run(["enroll", "--keyword", "jarvis", "--device", ALSATestDevices.captureName,
                                                  "--samples", "3", "--dir", folder.path])
        #expect(result.status != 0)
        #expect(result.stderr.hasPrefix("Error: heard nothing for 8 s from '\(ALSATestDevices.captureName)' (room at -120 dBFS): "
            + "check the microphone and its level with `hotword record test.wav --seconds 3 --device \(ALSATestDevices.captureName)`"),
            "\(result.stderr)")
        #expect(result.stdout.contains("Say \"jarvis\" (1 of 3)…"))
    }
}
