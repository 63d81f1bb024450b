import ArgumentParser
import Atomics
import Foundation
import HotwordCore
import HotwordModels
import HotwordTestSupport

/// The soak test (`scripts/soak.sh`): hours of audio with a wake word and a question every
/// minute, said faster than real time into `hotword run --json` through a real ALSA device
/// (the file plugin reading a FIFO), with a local SUSI server; then the figures: every wake
/// word detected once and on time, no drift, no audio lost, memory flat, and — for a build
/// with AddressSanitizer — no leaks.
@main
struct SoakCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hotword-soak",
        abstract: "Feed hours of audio with wake words through `hotword run` and check it.")

    @Option(help: ArgumentHelp("The hotword binary to test (default: the one beside this program).", valueName: "PATH"))
    var hotword: String?

    @Option(help: "Hours of audio.")
    var hours = 24.0

    @Option(help: "Speed, as a multiple of real time, while the assistant listens.")
    var speed = 100.0

    @Option(help: "Speed while it works on a question (transcribing, asking, speaking).")
    var slowSpeed = 1.0

    @Option(help: "Seconds of audio from one wake word to the next.")
    var wakeInterval = 60.0

    @Option(help: "The wake-word model (name or path); its keyword's recordings in the data folder are said.")
    var model = "computer"

    @Option(help: ArgumentHelp("The shared data folder.", valueName: "DIR"))
    var data: String?

    @Option(help: ArgumentHelp("Where to put the log, the events, the ground truth and the figures.", valueName: "DIR"))
    var out: String?

    @Flag(help: "The binary is built with AddressSanitizer: check for leaks instead of resident memory.")
    var sanitized = false

    @Option(help: "Different wake-word recordings to cycle through.")
    var wakeClips = 40

    @Option(help: "Background speech clips held in memory (looped).")
    var speechClips = 400

    @Option(help: "Seconds of background noise held in memory (looped).")
    var noiseSeconds = 900.0

    @Option(help: "Seed of the stream.")
    var seed: UInt64 = 1

    @Option(help: "Seconds to wait for `hotword run` to stop after SIGINT.")
    var stopTimeout = 120

    func validate() throws {
        guard hours > 0, hours <= 1000 else { throw ValidationError("--hours must be in (0, 1000]") }
        guard speed >= 1, slowSpeed >= 1 else { throw ValidationError("--speed and --slow-speed must be at least 1") }
        guard wakeInterval >= 20 else { throw ValidationError("--wake-interval must be at least 20 seconds") }
        guard wakeClips > 0, speechClips > 0, noiseSeconds > 0 else { throw ValidationError("material counts must be positive") }
    }

    func run() async throws {
        let folder = try outputFolder()
        let binary = URL(fileURLWithPath: hotword ?? Self.sibling("hotword"))
        let modelPath = try ModelStore.resolve(model)
        let keywordModel = try ModelStore.load(modelPath)
        let keyword = keywordModel.keywords[0]
        let log = { (line: String) in Self.log(line) }
        log("soak: \(hours) h of audio at \(speed)× (\(slowSpeed)× while busy), a '\(keyword)' every \(wakeInterval) s; files in \(folder.path)")

        let material = try await SoakMaterial.load(
            data: data.map { URL(fileURLWithPath: $0) } ?? TestPaths.sharedData, keyword: keyword, model: keywordModel,
            wakeClips: wakeClips, speechClips: speechClips, noiseSeconds: noiseSeconds, log: log)
        guard !material.wakeClips.isEmpty else { throw SoakError.noWakeClips(tried: material.wakeClipsTried) }
        try (material.wakeClipsRejected.map { "\($0.name)\t\($0.reason)" }.joined(separator: "\n") + "\n")
            .write(to: folder.appendingPathComponent("rejected-clips.tsv"), atomically: true, encoding: .utf8)

        let server = try SUSITestServer(fallback: .answer("It is sunny and warm in Berlin today."),
                                        maxConnections: .max, lifetime: .seconds(30 * 86_400))
        defer { server.shutdown() }
        let busy = ManagedAtomic(true)
        let stream = try SoakStream(material: material, model: keywordModel, totalSeconds: hours * 3600,
                                    wakeIntervalSeconds: wakeInterval, seed: seed)
        let writer = try PacedFIFOWriter(fifo: folder.appendingPathComponent("microphone.fifo"), stream: stream,
                                         fastSpeed: speed, slowSpeed: slowSpeed) { busy.load(ordering: .relaxed) }
        let config = try writeConfiguration(in: folder, microphone: ALSATestDevices.capture(replaying: writer.fifo),
                                            server: server.baseURL)
        writer.start()
        let assistant = try AssistantProcess(
            executable: binary, arguments: ["run", "--config", config.path, "--model", modelPath, "--json"],
            log: folder.appendingPathComponent("hotword.log"),
            eventLog: folder.appendingPathComponent("events.jsonl"), busy: busy) { writer.samplesWritten }

        let interrupted = try await waitForTheEnd(of: assistant, writer: writer, busy: busy)
        let exitStatus = await assistant.stop(timeout: .seconds(stopTimeout))
        let wallSeconds = assistant.elapsed
        let written = Double(writer.samplesWritten)
        let slowFraction = Double(writer.samplesWrittenSlowly) / max(written, 1)
        let finalStream = writer.stop()
        let logText = (try? String(contentsOf: folder.appendingPathComponent("hotword.log"), encoding: .utf8)) ?? ""

        // Interrupted, the stream may hold a wake block not yet said (or not yet heard).
        let heard = Int(written) - 10 * SoakMaterial.sampleRate
        let report = SoakReport(
            truth: finalStream.truth.filter { $0.blockEnd <= heard }, events: assistant.events,
            memorySamples: assistant.memorySamples,
            audioSeconds: Double(min(finalStream.generated, Int(written))) / Double(SoakMaterial.sampleRate), wallSeconds: wallSeconds,
            slowFraction: slowFraction, susiRequests: server.chatRequests.count, log: logText, sanitized: sanitized,
            exitStatus: exitStatus)
        try save(report, stream: finalStream, memory: assistant.memorySamples, in: folder)
        if interrupted { print("interrupted: the figures cover the audio said so far") }
        print(report.text)
        if !report.failures.isEmpty { throw ExitCode.failure }
    }

    /// Waits until the stream has been said, followed by enough silence to carry the last
    /// question through (the daemon's ring holds 30 s), and the assistant is listening again —
    /// or until it ends, or SIGINT or SIGTERM; true for a signal. Logs progress every minute.
    private func waitForTheEnd(of assistant: AssistantProcess, writer: PacedFIFOWriter, busy: ManagedAtomic<Bool>) async throws -> Bool {
        let interrupted = ManagedAtomic(false)
        let signals = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { interrupted.store(true, ordering: .relaxed) }
            source.resume()
            return source
        }
        defer { signals.forEach { $0.cancel() } }
        let trailing = 40 * SoakMaterial.sampleRate
        var endOfStream: Int?
        var lastProgress = assistant.elapsed
        while assistant.isRunning, !interrupted.load(ordering: .relaxed) {
            if endOfStream == nil, writer.streamEnded { endOfStream = writer.samplesWritten }
            if let end = endOfStream, writer.samplesWritten >= end + trailing, !busy.load(ordering: .relaxed) { break }
            if assistant.elapsed - lastProgress >= 60 {
                lastProgress = assistant.elapsed
                Self.log(progress(assistant, writer))
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        return interrupted.load(ordering: .relaxed)
    }

    private func progress(_ assistant: AssistantProcess, _ writer: PacedFIFOWriter) -> String {
        let wakes = assistant.events.filter { $0.name == "wake" }.count
        let rss = assistant.memorySamples.last.map { String(format: "%.1f MiB", Double($0.kibibytes) / 1024) } ?? "?"
        return String(format: "%.2f h of audio after %.1f min: %d wakes, RSS %@", Double(writer.samplesWritten) / 16_000 / 3600,
                      assistant.elapsed / 60, wakes, rss)
    }

    private func outputFolder() throws -> URL {
        let folder = out.map { URL(fileURLWithPath: $0) } ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("hotword-soak-\(Int(Date().timeIntervalSince1970))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// The test devices and server (TOML literal strings: device names hold quotes). Speech
    /// goes to a real playback device writing into /dev/null.
    private func writeConfiguration(in folder: URL, microphone: String, server: URL) throws -> URL {
        let file = folder.appendingPathComponent("hotword.toml")
        try """
            [audio]
            capture_device = '\(microphone)'
            playback_device = '\(ALSATestDevices.playback(into: URL(fileURLWithPath: "/dev/null")))'
            playback_rate = 16000
            [susi]
            server = '\(server.absoluteString)'

            """.write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    private func save(_ report: SoakReport, stream: SoakStream, memory: [MemorySample], in folder: URL) throws {
        try (report.text + "\n").write(to: folder.appendingPathComponent("figures.txt"), atomically: true, encoding: .utf8)
        let rate = Double(SoakMaterial.sampleRate)
        var truth = "index\tclip\tword_start_s\tword_end_s\tdetections\terror_s\treference_detections\n"
        for wake in report.wakes {
            truth += String(format: "%d\t%@\t%.4f\t%.4f\t%d\t%@\t%d\n", wake.truth.index, wake.truth.clip, Double(wake.truth.wordStart) / rate,
                            Double(wake.truth.wordEnd) / rate, wake.detections, wake.error.map { String(format: "%+.4f", $0) } ?? "",
                            wake.truth.referenceDetections)
        }
        try truth.write(to: folder.appendingPathComponent("truth.tsv"), atomically: true, encoding: .utf8)
        let rss = "wall_s\taudio_s\trss_kib\n" + memory.map { String(format: "%.1f\t%.1f\t%d\n", $0.wallSeconds, $0.audioSeconds, $0.kibibytes) }.joined()
        try rss.write(to: folder.appendingPathComponent("memory.tsv"), atomically: true, encoding: .utf8)
    }

    /// An executable in the same folder as this one.
    private static func sibling(_ name: String) -> String {
        URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent(name).path
    }

    private static func log(_ line: String) {
        let stamp = Date().formatted(.iso8601.time(includingFractionalSeconds: false))
        FileHandle.standardError.write(Data("[\(stamp)] \(line)\n".utf8))
    }
}

enum SoakError: Error, CustomStringConvertible {
    case system(String, Int32)
    case noWakeClips(tried: Int)

    var description: String {
        switch self {
        case .system(let call, let code): "\(call) failed: \(String(cString: strerror(code)))"
        case .noWakeClips(let tried): "none of the \(tried) wake-word recordings was detected on its own (see rejected-clips.tsv)"
        }
    }
}
