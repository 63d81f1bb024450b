import Foundation
import HotwordTestSupport
import Testing

/// `scripts/train-word.sh`, your own wake word in one command. A real run trains for half an hour
/// or more (docs/training.md has the measured runs); here a stand-in for the hotword binary that
/// logs each step and writes what `--out` names shows which steps run, in which order, and that
/// the model reaches `--out` only when every step succeeded.
@Suite("scripts/train-word.sh")
struct TrainWordScriptTests {
    struct Run {
        let status: Int32
        let steps: [String]
        let errors: String
    }

    /// Runs the script in `folder` with the stand-in, which fails (status 3) on the step named `failing`.
    static func run(_ arguments: [String], in folder: URL, failing: String? = nil) throws -> Run {
        let log = folder.appendingPathComponent("steps.log"), binary = folder.appendingPathComponent("hotword")
        try Data("""
            #!/usr/bin/env bash
            echo "$*" >> '\(log.path)'
            [ "$1" = '\(failing ?? "")' ] && exit 3
            previous=""
            for argument in "$@"; do
              if [ "$previous" = --out ]; then if [ "$1" = synthesize ]; then mkdir -p "$argument/positive"; else echo model > "$argument"; fi; fi
              previous=$argument
            done
            exit 0
            """.utf8).write(to: binary)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: binary.path)
        let process = Process()
        process.executableURL = TestPaths.projectRoot.appendingPathComponent("scripts/train-word.sh")
        process.arguments = arguments
        process.currentDirectoryURL = folder
        process.environment = ProcessInfo.processInfo.environment.merging(["HOTWORD": binary.path]) { $1 }
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let steps = ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").map { String($0.prefix { $0 != " " }) }
        return Run(status: process.terminationStatus, steps: steps, errors: errorText)
    }

    @Test func fromThePhraseAloneTheModelIsNamedAfterIt() throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try Self.run(["Hey Computer!"], in: folder)
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.steps == ["synthesize", "train", "tune", "eval"])
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("hey_computer.hwks").path))
    }

    @Test func withPeopleBothFrontEndsArePaired() throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("people"), withIntermediateDirectories: true)
        let run = try Self.run(["hey computer", "--people", "people", "--out", "mine.hwks"], in: folder)
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.steps == ["synthesize", "train", "train", "ensemble", "tune", "eval"])
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("mine.hwks").path))
    }

    /// A step that fails stops the script, and nothing — not half a model — is at --out.
    @Test func aFailedStepLeavesNothingAtOut() throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try Self.run(["hey computer"], in: folder, failing: "tune")
        #expect(run.status == 3)
        #expect(run.steps == ["synthesize", "train", "tune"])
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(!left.contains { $0.hasPrefix("hey_computer.hwks") }, "\(left)")
    }

    @Test func aMissingPeopleFolderOrAPhraseWithoutLettersIsNamed() throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let missing = try Self.run(["hey computer", "--people", "nobody"], in: folder)
        #expect(missing.status == 66 && missing.errors.contains("--people nobody is not a folder"), "\(missing.errors)")
        let symbols = try Self.run(["?!"], in: folder)
        #expect(symbols.status == 64 && symbols.errors.contains("\"?!\" gives no file name"), "\(symbols.errors)")
        #expect(missing.steps.isEmpty && symbols.steps.isEmpty)
    }
}
