import ArgumentParser
import Foundation
import HotwordAudio
import HotwordCore

/// `hotword bench`: how much CPU detection costs, and which part of the detector costs what.
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure detection speed (real-time factor) and memory on one core.",
        discussion: """
            Runs each part of the detector on its own, then the whole detector, over --minutes of \
            audio (a one-minute signal repeated: a --audio file, or a deterministic mix of noise, tones \
            and silence), fed in 100 ms chunks as the daemon does. The parts: each front end (log-mel; \
            the speech embedding's mel front end and its network), the networks on each, and what is \
            left of the total (gates, fusion, scores, smoothing, triggers), so that they add up to it. \
            A pair with a gate (a cascade) embeds only the windows its companion is asked for: the \
            embedding and the heads count as much of their cost on every window as the detector's \
            run computed (its windows streamed, those of a catch-up's start whole), and the share of \
            the first network's outputs at which the gate was open is printed. Real-time \
            factor = CPU seconds per second of audio (lower is faster); measured with the thread's CPU clock. With \
            --check-phrase it also times the second stage: pocketsphinx spotting the first keyword's \
            phrase in each 3 s window of the minute (wall-clock and process CPU time per window).
            """)

    @OptionGroup var detector: DetectorOptions

    @Option(help: "Minutes of audio to process (a fraction too: 0.1 is 6 s).")
    var minutes: Double = 60

    @Option(help: "Audio file to use as the repeated minute (default: synthetic).")
    var audio: String?

    @OptionGroup var phraseCheck: PhraseCheckOptions

    func run() throws {
        guard minutes > 0, minutes <= 100_000 else { throw ValidationError("--minutes must be more than 0 and at most 100000, not \(minutes)") }
        let models = try detector.loadModels()
        let minute = try oneMinuteOfAudio()
        let audioSeconds = minutes * 60
        let total = Int(audioSeconds * Double(AudioFormat.sampleRate))
        // Less than a minute is that much of it: its features are all the networks hear.
        let heard = total < minute.count ? Array(minute[..<total]) : minute
        let chunk = 1_600  // divides the minute: no chunk spans its repetition

        /// Feeds `minutes` of the repeated minute in chunks, as the daemon would.
        func feedChunks(_ body: (UnsafeBufferPointer<Float>) -> Void) {
            minute.withUnsafeBufferPointer { all in
                for start in stride(from: 0, to: total, by: chunk) {
                    let offset = start % all.count
                    body(UnsafeBufferPointer(rebasing: all[offset..<offset + min(chunk, total - start)]))
                }
            }
        }

        /// Hands on the frames of the audio heard's features for `minutes`, repeated.
        func forEachFrame(of features: FeatureMatrix, _ body: (UnsafeBufferPointer<Float>) -> Void) {
            let count = features.featureCount
            features.values.withUnsafeBufferPointer { values in
                for frame in 0..<Int(Double(features.frameCount) * max(1, minutes)) {
                    let t = frame % features.frameCount
                    body(UnsafeBufferPointer(rebasing: values[t * count..<(t + 1) * count]))
                }
            }
        }

        // Everything heard once before anything is timed, so that no part pays for the first touch
        // of the weights; then the stream's steady cost, as the parts measure it: the lead-in (a
        // receptive field of copies of the first frame, once at a stream's start) would weigh on a short run.
        let spotter = try detector.makeDetector(models)
        _ = spotter.process(Array(heard.prefix(10 * AudioFormat.sampleRate)))
        spotter.reset(leadIn: false)

        var detections = 0
        let detectorSeconds = cpuSeconds {
            feedChunks { piece in detections += spotter.process(piece).count }
        }
        let cascade = spotter.cascade
        /// The share of every window's embedding cost the detector's run paid: windows streamed
        /// at the stream's cost, the rest (a catch-up's first) at a whole window's, `wholeCost` as much.
        func embeddedShare(wholeCost: Double) -> Double {
            guard cascade.windows > 0 else { return 1 }
            return (Double(cascade.embeddings - cascade.wholeEmbeddings) + wholeCost * Double(cascade.wholeEmbeddings)) / Double(cascade.windows)
        }

        var parts: [(name: String, seconds: Double)] = []
        func addPart(_ name: String, _ seconds: Double) {
            if let index = parts.firstIndex(where: { $0.name == name }) { parts[index].seconds += seconds } else { parts.append((name, seconds)) }
        }
        // Each front end runs once for all the networks on it, as in the detector; each network
        // (a pair's two, a log-mel one and a head on the speech embedding) on its own front end's frames.
        for (frontend, networks) in Self.networksByFrontend(models) {
            let spectral = try FeatureExtractor(config: frontend.spectral)
            let spectralSeconds = cpuSeconds { feedChunks { piece in spectral.process(piece) { _ in } } }
            if let embedding = frontend.embedding {
                addPart("speech embedding: mel front end", spectralSeconds)
                let stream = SpeechEmbeddingStream(network: embedding)
                let melFrames = try FeatureExtractor(config: frontend.spectral).frames(of: heard)
                let streamedSeconds = cpuSeconds {
                    forEachFrame(of: melFrames) { frame in stream.push(frame) { _ in } }
                }
                addPart("speech embedding: network", streamedSeconds * embeddedShare(wholeCost: Self.wholeWindowCost(embedding, melFrames)))
            } else if case .perChannelEnergy = frontend.normalisation {
                addPart("log-mel front end (PCEN)", spectralSeconds)
            } else {
                addPart("log-mel front end", spectralSeconds)
            }
            let frames = try FeatureExtractor(config: frontend).frames(of: heard)
            for network in networks {
                let stream = StreamingNetwork(model: network.model)
                let seconds = cpuSeconds { forEachFrame(of: frames) { frame in _ = stream.push(frame.baseAddress!) } }
                // A companion on the embedding runs on the windows asked for (shared out evenly
                // among the companions: the detector counts them together).
                let companions = models.filter { $0.companion?.frontend == frontend }.count
                let share = network.isCompanion && frontend.embedding != nil && cascade.windows > 0
                    ? Double(cascade.companionSteps) / Double(cascade.windows * companions) : 1
                addPart(frontend.embedding == nil ? "log-mel networks" : "heads on the speech embedding", seconds * share)
            }
        }

        // What the parts leave of the whole: gain, scores, smoothing, triggers, the lead-in.
        parts.append(("other (gates, fusion, scores, smoothing, triggers)", detectorSeconds - parts.reduce(0) { $0 + $1.seconds }))

        let macs = models.reduce(0) { $0 + $1.multiplyAddsPerSecond }
        let parameters = models.reduce(0) { $0 + $1.parameterCount }
        print("audio            \(format(minutes, minutes < 10 ? 2 : 0)) min, \(models.count) model(s): \(models.flatMap(\.keywords).joined(separator: ", "))")
        print("model size       \(parameters) parameters, \(format(macs / 1e6, 2)) M multiply-adds per audio second")
        let width = parts.map(\.name.count).max()!
        for part in parts {
            print("\(part.name.padding(toLength: width, withPad: " ", startingAt: 0))  RTF \(rtf(part.seconds, audioSeconds))  "
                  + "(\(format(100 * part.seconds / detectorSeconds, 1)) % of the total)")
        }
        print("\("detector total".padding(toLength: width, withPad: " ", startingAt: 0))  RTF \(rtf(detectorSeconds, audioSeconds))  "
              + "(\(format(audioSeconds / detectorSeconds, 0))× faster than real time, \(detections) detections)")
        if models.contains(where: { $0.companion?.gate != nil }) {
            print("cascade          gate open at \(format(cascade.openShare * 100, 1)) % of the first networks' outputs; "
                  + "\(cascade.embeddings) of \(cascade.windows) embedding windows computed (\(cascade.wholeEmbeddings) whole, catching up)")
        }
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

    /// Every front end the models' networks run on, in order of first use, with those networks
    /// (a model with a companion has one on each of two front ends).
    static func networksByFrontend(_ models: [KeywordModel]) -> [(FrontendConfig, [(model: KeywordModel, isCompanion: Bool)])] {
        var groups: [(FrontendConfig, [(model: KeywordModel, isCompanion: Bool)])] = []
        let networks = models.flatMap { [($0.withoutCompanion, false)] + ($0.companionModel.map { [($0, true)] } ?? []) }
        for network in networks {
            if let index = groups.firstIndex(where: { $0.0 == network.0.frontend }) {
                groups[index].1.append(network)
            } else {
                groups.append((network.0.frontend, [network]))
            }
        }
        return groups
    }

    /// What a window computed whole costs against one streamed (`SpeechEmbedder.embedNext`), timed
    /// on the frames heard: a catch-up's first window is whole.
    static func wholeWindowCost(_ embedding: SpeechEmbedding, _ frames: FeatureMatrix) -> Double {
        // Every window asked for alone (the stream keeps one), so each is computed whole.
        let alone = SpeechEmbeddingStream(network: embedding), streamed = SpeechEmbeddingStream(network: embedding)
        var wholeWindows = 0, streamedWindows = 0
        let wholeSeconds = cpuSeconds {
            for t in 0..<frames.frameCount where frames[frame: t].withUnsafeBufferPointer({ alone.append($0) }) {
                if alone.windowsCompleted % 2 == 0 { _ = alone.embedding(at: alone.windowsCompleted - 1); wholeWindows += 1 }
            }
        }
        let streamedSeconds = cpuSeconds {
            for t in 0..<frames.frameCount { frames[frame: t].withUnsafeBufferPointer { streamed.push($0) { _ in streamedWindows += 1 } } }
        }
        guard wholeWindows > 0, streamedWindows > 0, streamedSeconds > 0 else { return 1 }
        return (wholeSeconds / Double(wholeWindows)) / (streamedSeconds / Double(streamedWindows))
    }
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
