import ArgumentParser
import Foundation
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
            reported and the others are still processed (exit status 1 if any failed).
            """)

    @Argument(help: "Audio files (WAV, FLAC, OGG, …).")
    var files: [String]

    @OptionGroup var detector: DetectorOptions

    @Flag(help: "Print JSON lines instead of text.")
    var json = false

    @Option(name: .customLong("scores"), help: ArgumentHelp("Write every network score to this CSV file (file,time,keyword,raw,smoothed).", valueName: "CSV"))
    var scoresPath: String?

    func run() throws {
        let models = try detector.loadModels()
        var scoreRows: [String] = []
        var failures = 0
        for file in files {
            let samples: [Float]
            do {
                samples = try AudioFileReader.read(URL(fileURLWithPath: file)).samples
            } catch {
                printError("\(error)")
                failures += 1
                continue
            }
            let spotter = try detector.makeDetector(models)
            if scoresPath != nil {
                spotter.onScore = { event in
                    scoreRows.append("\(csvField(file)),\(format(event.time, 3)),\(csvField(event.keyword)),\(event.raw),\(event.smoothed)")
                }
            }
            for detection in spotter.process(samples).detections {
                print(json ? DetectionLine(file: file, detection).json : DetectionLine(file: file, detection).text)
            }
        }
        if let scoresPath {
            let csv = (["file,time,keyword,raw,smoothed"] + scoreRows).joined(separator: "\n") + "\n"
            do {
                try csv.write(toFile: scoresPath, atomically: true, encoding: .utf8)
            } catch {
                throw ValidationError("cannot write scores to \(scoresPath): \((error as NSError).localizedDescription)")
            }
        }
        if failures > 0 { throw ExitCode(1) }
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

func printError(_ message: String) {
    FileHandle.standardError.write(Data("hotword: \(message)\n".utf8))
}
