import ArgumentParser
import Foundation
import HotwordAssistant
import HotwordAudio
import HotwordCore
import HotwordModels

/// `hotword detect FILE...`: offline detection over audio files.
struct DetectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "detect",
        abstract: "Find wake words in audio files.",
        discussion: """
            Prints one line per detection: file, time in seconds (end of the keyword), keyword, score. \
            Files may be in any format and rate libsndfile reads; a file that cannot be read is \
            reported and the others are still processed (exit status 1 if any failed). \
            With --check-phrase each detection is printed once the second after it has been read, \
            and only if pocketsphinx spots the keyword's phrase in the window from 2 s before it to \
            1 s after it (what there is of it at the ends of a file); --verbose names the dropped \
            ones on standard error.
            """)

    @Argument(help: "Audio files (WAV, FLAC, OGG, …).")
    var files: [String]

    @OptionGroup var detector: DetectorOptions

    @OptionGroup var phraseCheck: PhraseCheckOptions

    @Flag(help: "With --check-phrase: list the detections the check dropped on standard error; and log in detail.")
    var verbose = false

    @Flag(help: "Print JSON lines instead of text.")
    var json = false

    @Option(name: .customLong("scores"), help: ArgumentHelp("Write every network score to this CSV file (file,time,keyword,raw,smoothed).", valueName: "CSV"))
    var scoresPath: String?

    func run() throws {
        bootstrapLogging(verbose: verbose, quiet: .warning)
        let models = try detector.loadModels()
        let phraseSpotters = try phraseCheck.spotters(for: models)
        let scores = try scoresPath.map(ScoreTrace.init)
        var failures = 0
        for file in files {
            let spotter = try detector.makeDetector(models)
            if let scores { spotter.onScore = { scores.append(file: file, $0) } }
            do {
                try detect(in: file, with: spotter, checkedBy: phraseSpotters.isEmpty ? nil : CheckedDetections(checks: phraseSpotters))
            } catch {
                printError("\(error)")
                failures += 1
            }
        }
        try scores?.finish()
        if failures > 0 { throw ExitCode(1) }
    }

    /// Decodes and detects block by block, so memory stays flat however long the file is; the
    /// detector gets the same samples in the same order as from `AudioFileReader.read`, so it
    /// finds the same. Detections before a read error are printed.
    private func detect(in file: String, with spotter: Detector, checkedBy check: CheckedDetections?) throws {
        let stream = try AudioFileStream(URL(fileURLWithPath: file))
        var block: [Float] = []
        while try stream.read(into: &block) {
            let detections = spotter.process(block)
            if let check {
                report(check.append(block, detections: detections), in: file)
            } else {
                detections.forEach { print(line(file, $0)) }
            }
        }
        if let check { report(check.finish(), in: file) }
    }

    private func report(_ verdicts: [CheckedDetections.Verdict], in file: String) {
        for verdict in verdicts {
            if let failure = verdict.failure {
                printNote("the phrase check failed (\(failure)); kept: \(DetectionLine(file: file, verdict.detection).text)")
            }
            if verdict.kept {
                print(line(file, verdict.detection))
            } else if verbose {
                printNote("dropped, pocketsphinx did not hear \"\(verdict.detection.keyword)\": \(DetectionLine(file: file, verdict.detection).text)")
            }
        }
    }

    private func line(_ file: String, _ detection: Detection) -> String {
        json ? DetectionLine(file: file, detection).json : DetectionLine(file: file, detection).text
    }
}

/// `--scores`: every network score as a CSV row, written as it comes (so memory stays flat)
/// into a file beside the target that takes its name only when complete.
private final class ScoreTrace {
    private let path: String
    private let partialPath: String
    private let file: UnsafeMutablePointer<FILE>

    init(path: String) throws {
        self.path = path
        partialPath = path + ".partial"
        guard let file = fopen(partialPath, "w") else {
            throw CommandFailure("cannot write scores to \(partialPath): \(String(cString: strerror(errno)))")
        }
        self.file = file
        fputs("file,time,keyword,raw,smoothed\n", file)
    }

    func append(file name: String, _ event: ScoreEvent) {
        fputs("\(csvField(name)),\(format(event.time, 3)),\(csvField(event.keyword)),\(event.raw),\(event.smoothed)\n", file)
    }

    func finish() throws {
        let failed = ferror(file) != 0
        let closed = fclose(file) == 0
        guard !failed, closed, rename(partialPath, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(partialPath)
            throw CommandFailure("cannot write scores to \(path): \(reason)")
        }
    }
}

/// One detection as printed by `detect`.
private struct DetectionLine: Encodable {
    var file: String
    var time: Double
    var keyword: String
    var score: Double

    init(file: String, _ detection: Detection) {
        self.file = file
        time = (detection.time * 1000).rounded() / 1000
        keyword = detection.keyword
        score = (Double(detection.score) * 1000).rounded() / 1000
    }

    var text: String { "\(file)\t\(format(time, 2))\t\(keyword)\t\(format(score, 3))" }

    var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try! encoder.encode(self), as: UTF8.self)
    }
}

private func csvField(_ text: String) -> String {
    text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" }) ? "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : text
}

func format(_ value: Double, _ decimals: Int) -> String { String(format: "%.\(decimals)f", value) }

/// A time as every command prints it: ISO 8601, local, to the second (`2026-11-25T14:30:05+01:00`).
func isoTime(_ date: Date) -> String {
    date.formatted(Date.ISO8601FormatStyle(timeZone: .current))
}

/// A failure that does not end the command (it goes on with the next file), said as every failure is.
func printError(_ message: String) {
    FileHandle.standardError.write(Data("Error: \(message)\n".utf8))
}

/// Something the user should know that is no failure, in parentheses as every such note.
func printNote(_ message: String) {
    FileHandle.standardError.write(Data("(\(message))\n".utf8))
}
