import ArgumentParser
import Foundation
import HotwordAudio
import HotwordCore

/// `hotword bench`: how much CPU detection costs, split into frontend and inference.
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure detection speed (real-time factor) and memory on one core.",
        discussion: """
            Runs the feature frontend, the networks, and the whole detector over --minutes of audio \
            (a one-minute signal repeated: a --audio file, or a deterministic mix of noise, tones and \
            silence), fed in 100 ms chunks as the daemon does. Real-time factor = CPU seconds per \
            second of audio (lower is faster); measured with the thread's CPU clock. With \
            --check-phrase it also times the second stage: pocketsphinx spotting the first keyword's \
            phrase in each 3 s window of the minute (wall-clock and process CPU time per window).
            """)

    @OptionGroup var detector: DetectorOptions

    @Option(help: "Minutes of audio to process.")
    var minutes: Int = 60

    @Option(help: "Audio file to use as the repeated minute (default: synthetic).")
    var audio: String?

    @OptionGroup var phraseCheck: PhraseCheckOptions

    func run() throws {
        guard minutes >= 1 else { throw ValidationError("--minutes must be at least 1") }
        let models = try detector.loadModels()
        let minute = try oneMinuteOfAudio()
        let audioSeconds = Double(minutes * 60)
        let chunk = 1_600

        /// Feeds the minute `minutes` times in chunks, as the daemon would.
        func feedChunks(_ body: (UnsafeBufferPointer<Float>) -> Void) {
            for _ in 0..<minutes {
                minute.withUnsafeBufferPointer { all in
                    for start in stride(from: 0, to: all.count, by: chunk) {
                        body(UnsafeBufferPointer(rebasing: all[start..<min(start + chunk, all.count)]))
                    }
                }
            }
        }

        let frontend = try FeatureExtractor(config: models[0].frontend)
        var frames = 0
        let frontendSeconds = cpuSeconds {
            feedChunks { piece in frontend.process(piece) { _ in frames += 1 } }
        }

        let features = try FeatureExtractor(config: models[0].frontend).frames(of: minute)
        let networks = models.map(StreamingNetwork.init)
        let inferenceSeconds = cpuSeconds {
            for _ in 0..<minutes {
                features.values.withUnsafeBufferPointer { values in
                    for t in 0..<features.frameCount {
                        for network in networks { _ = network.push(values.baseAddress! + t * features.featureCount) }
                    }
                }
            }
        }

        let spotter = try detector.makeDetector(models)
        var detections = 0
        let detectorSeconds = cpuSeconds {
            feedChunks { piece in detections += spotter.process(piece).count }
        }

        let macs = models.reduce(0) { $0 + $1.multiplyAddsPerSecond }
        let parameters = models.reduce(0) { $0 + $1.parameterCount }
        print("audio            \(minutes) min, \(models.count) model(s): \(models.flatMap(\.keywords).joined(separator: ", "))")
        print("model size       \(parameters) parameters, \(format(macs / 1e6, 2)) M multiply-adds per audio second")
        print("frontend         RTF \(rtf(frontendSeconds, audioSeconds))  (\(format(Double(frames) / frontendSeconds, 0)) frames/s, \(format(frontendSeconds / Double(frames) * 1e6, 2)) µs/frame)")
        print("inference        RTF \(rtf(inferenceSeconds, audioSeconds))  (\(format(Double(frames) / inferenceSeconds, 0)) frames/s)")
        print("detector total   RTF \(rtf(detectorSeconds, audioSeconds))  (\(format(audioSeconds / detectorSeconds, 0))× faster than real time, \(detections) detections)")
        if phraseCheck.enabled ?? (models[0].detection.phraseCheck != nil) { try benchmarkPhraseCheck(models, minute: minute) }
        print("peak RSS         \(format(Double(peakResidentKilobytes()) / 1024, 1)) MiB")
    }

    /// The second stage's cost: loading the spotter, then checking every 3 s window of the minute.
    private func benchmarkPhraseCheck(_ models: [KeywordModel], minute: [Float]) throws {
        let keyword = models[0].keywords[0]
        let loadStarted = ContinuousClock.now
        guard let spotter = try phraseCheck.spotters(for: [models[0]])[keyword] else { return }
        let loading = ContinuousClock.now - loadStarted
        let length = Int((CheckedWindow.before + CheckedWindow.after) * Double(AudioFormat.sampleRate))
        let windows = stride(from: 0, through: minute.count - length, by: length).map { Array(minute[$0..<($0 + length)]) }
        var heard = 0
        let cpuStarted = processCPUSeconds(), started = ContinuousClock.now
        for window in windows where try spotter.hears(window) { heard += 1 }
        let wall = (ContinuousClock.now - started) / .seconds(1), cpu = processCPUSeconds() - cpuStarted
        print("phrase check     \"\(keyword)\": \(format(wall / Double(windows.count) * 1000, 1)) ms per 3 s window "
              + "(\(format(cpu / Double(windows.count) * 1000, 1)) ms CPU; \(windows.count) windows, \(heard) heard; "
              + "loading \(format(loading / .seconds(1), 2)) s)")
    }

    private func oneMinuteOfAudio() throws -> [Float] {
        let length = 60 * AudioFormat.sampleRate
        guard let audio else { return Self.syntheticMinute(length: length) }
        let samples: [Float]
        do {
            samples = try AudioFileReader.read(URL(fileURLWithPath: audio)).samples
        } catch {
            throw CommandFailure("\(error)")
        }
        guard !samples.isEmpty else { throw CommandFailure("\(audio): no audio") }
        return (0..<length).map { samples[$0 % samples.count] }
    }

    /// Noise, tone sweeps and silence in turn, from a fixed seed, so runs compare.
    static func syntheticMinute(length: Int) -> [Float] {
        var state: UInt32 = 12_345
        return (0..<length).map { n in
            state = state &* 1_664_525 &+ 1_013_904_223
            let noise = Float(state >> 8) / Float(1 << 24) - 0.5
            let t = Float(n) / Float(AudioFormat.sampleRate)
            switch (n / AudioFormat.sampleRate) % 3 {
            case 0: return 0.1 * noise
            case 1: return 0.3 * sin(2 * .pi * (300 + 200 * t.truncatingRemainder(dividingBy: 1)) * t) + 0.02 * noise
            default: return 0.001 * noise
            }
        }
    }

    private func rtf(_ cpu: Double, _ audio: Double) -> String { String(format: "%.6f", cpu / audio) }
}

/// CPU time this thread spends in `work`, in seconds.
private func cpuSeconds(_ work: () -> Void) -> Double {
    var start = timespec(), end = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start)
    work()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &end)
    return Double(end.tv_sec - start.tv_sec) + Double(end.tv_nsec - start.tv_nsec) / 1e9
}

/// CPU time of the whole process (the spotter decodes on a queue of its own), in seconds.
private func processCPUSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

private func peakResidentKilobytes() -> Int {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return usage.ru_maxrss
}
