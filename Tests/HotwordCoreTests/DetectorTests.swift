import Foundation
import HotwordCore
import HotwordTestSupport
import Testing

@Suite struct DetectorTests {
    @Test func findsEachToneOnceNearItsEnd() throws {
        let detector = try Detector(models: [ToneModels.model(keyword: "beep", frequency: 1_000)])
        let found = detector.process(ToneModels.signal(seconds: 6, tones: [(1, 1_000), (3.5, 1_000)]))
        #expect(found.map(\.keyword) == ["beep", "beep"])
        #expect(found.count == 2)
        for (detection, start) in zip(found, [1.0, 3.5]) {
            #expect(detection.time > start && detection.time < start + 0.5, "at \(detection.time)")
            #expect(detection.score >= 0.8)
        }
    }

    /// The tone model with a memory of 1.2 s: a second convolution over 60 of its outputs that
    /// weighs only the newest three, so its scores are the tone model's but its warm-up is long.
    func longMemoryToneModel() -> KeywordModel {
        var model = ToneModels.model(keyword: "beep", frequency: 1_000)
        let newest = [Float](repeating: 0, count: 57) + [Float](repeating: 1 / 3, count: 3)
        model.layers.insert(.conv1D(Conv1DLayer(inputs: 1, outputs: 1, kernelSize: 60, activation: .linear, weights: newest, bias: [0])), at: 1)
        return model
    }

    /// A stream does not start deaf: a word at its first sample is heard as one said after a
    /// pause — detected once, while it lasts, at the same peak score — though the network's
    /// receptive field (1.2 s) is longer than the wait.
    @Test(arguments: [0.0, 0.1, 0.25, 0.5, 1])
    func aWordAtTheStartOfAStreamIsHeardLikeOneAfterAPause(start: Double) throws {
        let model = longMemoryToneModel()
        #expect(model.warmUpSamples > 19_000, "the receptive field outlasts the tone's start: \(model.warmUpSamples) samples")
        func heard(at start: Double) throws -> (detections: [Detection], peak: Float) {
            let detector = try Detector(models: [model])
            var peak: Float = 0
            detector.onScore = { if $0.time > 0 { peak = max(peak, $0.smoothed) } }
            let detections = detector.process(ToneModels.signal(seconds: start + 1.5, tones: [(start, 1_000)]))
            return (detections, peak)
        }
        let early = try heard(at: start), late = try heard(at: 2)
        #expect(early.detections.count == 1 && late.detections.count == 1, "at \(start) s: \(early.detections); at 2 s: \(late.detections)")
        for (heard, tone) in [(early, start), (late, 2)] {
            #expect(heard.detections.allSatisfy { $0.time > tone && $0.time < tone + 0.5 }, "the tone from \(tone) s heard at \(heard.detections)")
        }
        #expect(abs(early.peak - late.peak) < 0.01, "peak \(early.peak) from \(start) s, \(late.peak) from 2 s")
    }

    /// The lead-in before a stream is scored (so a replay of the scores sees what the live
    /// detector saw), timed before the first frame's end, and a reset starts it again.
    @Test func theLeadInIsScoredBeforeTheStreamsFirstFrame() throws {
        let model = longMemoryToneModel()
        let firstFrameEnd = Double(model.frontend.frameLength) / 16_000
        let detector = try Detector(models: [model])
        var times: [Double] = []
        detector.onScore = { times.append($0.time) }
        _ = detector.process([Float](repeating: 0, count: 1_600))
        let leadIn = times.filter { $0 < firstFrameEnd }
        #expect(leadIn.count > 50, "\(leadIn.count) scores of the lead-in")
        #expect(Double(leadIn.count) * 0.02 * 16_000 >= Double(model.warmUpSamples), "the lead-in covers the receptive field")
        #expect(times.count > leadIn.count && times.last! <= 0.1, "the stream's own scores after the lead-in's")
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 }, "in time order")
        times.removeAll()
        detector.reset()
        _ = detector.process([Float](repeating: 0, count: 1_600))
        #expect(times.filter { $0 < firstFrameEnd }.count == leadIn.count, "a reset starts a stream: the lead-in again")
        times.removeAll()
        detector.reset(leadIn: false)
        _ = detector.process([Float](repeating: 0, count: 1_600))
        #expect(!times.isEmpty && times.allSatisfy { $0 >= firstFrameEnd }, "without the lead-in, only the stream's own scores")
    }

    /// Without the lead-in a restart is free and deaf, as a stream once started: nothing is
    /// heard before the network has heard its receptive field.
    @Test func aResetWithoutTheLeadInIgnoresTheFirstReceptiveField() throws {
        let detector = try Detector(models: [longMemoryToneModel()])
        detector.reset(leadIn: false)
        #expect(detector.process(ToneModels.signal(seconds: 1.5, tones: [(0.1, 1_000)])).isEmpty)
        detector.reset(leadIn: false)
        #expect(detector.process(ToneModels.signal(seconds: 3.5, tones: [(2, 1_000)])).count == 1)
    }

    @Test func replayingScoresGivesTheLiveDetectorsDetectionsAtEveryThreshold() throws {
        // Tones of falling loudness, so that higher thresholds drop some of them; a trigger level
        // and refractory period that matter (tones 0.3 s apart merge into one detection).
        let detection = DetectionDefaults(smoothingSeconds: 0.06, triggerLevel: 2, refractorySeconds: 0.6)
        let model = ToneModels.model(keyword: "beep", frequency: 1_000, detection: detection)
        var signal = ToneModels.signal(seconds: 8, tones: [(0.5, 1_000), (0.9, 1_000)])
        for (start, amplitude) in [(2.5, Float(0.01)), (4.5, 0.003), (6.5, 0.001)] {
            let tone = ToneModels.signal(seconds: 8, tones: [(start, 1_000)], amplitude: amplitude)
            signal = zip(signal, tone).map { $0 + $1 }
        }
        let live = { (sensitivity: Float) throws -> [Detection] in
            try Detector(models: [model], settings: ["beep": KeywordSettings(sensitivity: sensitivity)]).process(signal)
        }
        let detector = try Detector(models: [model])
        var scores: [ScoreEvent] = []
        detector.onScore = { scores.append($0) }
        _ = detector.process(signal)
        let sensitivities: [Float] = [0, 0.2, 0.4, 0.5, 0.6, 0.8, 0.95, 1]
        let thresholds = sensitivities.map { model.detection.sensitivityMap.threshold(forSensitivity: $0) }
        let replayed = try Detector.replay(scores, keyword: "beep", of: model, thresholds: thresholds)
        var counts: Set<Int> = []
        for (sensitivity, found) in zip(sensitivities, replayed) {
            #expect(found == (try live(sensitivity)), "sensitivity \(sensitivity)")
            counts.insert(found.count)
        }
        #expect(counts.count > 1, "the thresholds change what is found: \(counts)")
        #expect(throws: DetectorError.self) { try Detector.replay(scores, keyword: "boop", of: model, thresholds: [0.5]) }
    }

    @Test func anyChunkingGivesTheSameScoresAndDetections() throws {
        let models = [ToneModels.model(keyword: "low", frequency: 500), ToneModels.model(keyword: "high", frequency: 2_000)]
        let signal = ToneModels.signal(seconds: 5, tones: [(0.5, 500), (1.5, 2_000), (3, 500)])
        func run(chunks: [Int]) throws -> (detections: [Detection], scores: [ScoreEvent]) {
            let detector = try Detector(models: models)
            var scores: [ScoreEvent] = []
            detector.onScore = { scores.append($0) }
            var detections: [Detection] = []
            var start = 0, next = 0
            while start < signal.count {
                let end = min(start + chunks[next % chunks.count], signal.count)
                detections += detector.process(Array(signal[start..<end]))
                start = end
                next += 1
            }
            return (detections, scores)
        }
        let whole = try run(chunks: [signal.count])
        #expect(whole.detections.map(\.keyword) == ["low", "high", "low"])
        var rng = SeededGenerator(seed: 11)
        for chunks in [[1], [160], [512], [1_600], [4_000], (0..<50).map { _ in Int.random(in: 1...5_000, using: &rng) }] {
            let chunked = try run(chunks: chunks)
            #expect(chunked.detections == whole.detections, "chunks \(chunks.prefix(3))…")
            #expect(chunked.scores == whole.scores)
        }
    }

    @Test func refractoryPeriodAndTriggerLevel() throws {
        // Two bursts 0.6 s apart: one detection with a 1 s refractory period, two with 0.4 s.
        let signal = ToneModels.signal(seconds: 4, tones: [(1, 1_000), (1.6, 1_000)], length: 0.3)
        func count(_ settings: KeywordSettings) throws -> Int {
            try Detector(models: [ToneModels.model(keyword: "beep", frequency: 1_000)], settings: ["beep": settings])
                .process(signal).count
        }
        #expect(try count(KeywordSettings(refractorySeconds: 1)) == 1)
        #expect(try count(KeywordSettings(refractorySeconds: 0.4)) == 2)
        // A burst of 0.3 s gives ~15 outputs above threshold; asking for 40 in a row finds none.
        #expect(try count(KeywordSettings(triggerLevel: 40)) == 0)
    }

    @Test func sensitivityMovesTheThreshold() throws {
        let detector = try Detector(models: [ToneModels.model(keyword: "beep", frequency: 1_000)])
        let tuned = try #require(detector.threshold(for: "beep"))
        try detector.setSensitivity(0.9, for: "beep")
        #expect(try #require(detector.threshold(for: "beep")) < tuned)
        try detector.setSensitivity(0.1, for: "beep")
        #expect(try #require(detector.threshold(for: "beep")) > tuned)
        #expect(throws: DetectorError.self) { try detector.setSensitivity(1.5, for: "beep") }
        #expect(throws: DetectorError.unknownKeyword("boop", known: ["beep"])) { try detector.setSensitivity(0.5, for: "boop") }
        // At sensitivity 0 (threshold 0.99) a weak tone is not enough; at 1 (threshold 0.3) it is.
        let weak = ToneModels.signal(seconds: 3, tones: [(1, 1_000)], amplitude: 0.02)
        func detections(at sensitivity: Float) throws -> Int {
            try Detector(models: [ToneModels.model(keyword: "beep", frequency: 1_000)],
                         settings: ["beep": KeywordSettings(sensitivity: sensitivity)]).process(weak).count
        }
        #expect(try detections(at: 1) == 1)
        #expect(try detections(at: 0) == 0)
    }

    @Test func gainScalesTheInput() throws {
        let model = ToneModels.model(keyword: "beep", frequency: 1_000)
        let signal = ToneModels.signal(seconds: 2, tones: [(0.5, 1_000)], amplitude: 0.05)
        func scores(_ samples: [Float], gain: Float) throws -> [ScoreEvent] {
            let detector = try Detector(models: [model], gain: gain)
            var events: [ScoreEvent] = []
            detector.onScore = { events.append($0) }
            _ = detector.process(samples)
            return events
        }
        #expect(try scores(signal, gain: 4) == scores(signal.map { $0 * 4 }, gain: 1))
        #expect(try scores(signal, gain: 4) != scores(signal, gain: 1))
        #expect(throws: DetectorError.invalidGain(0)) { try Detector(models: [model], gain: 0) }
    }

    @Test func rejectsConflictingModelsAndSettings() throws {
        let beep = ToneModels.model(keyword: "beep", frequency: 1_000)
        #expect(throws: DetectorError.noModels) { try Detector(models: []) }
        #expect(throws: DetectorError.duplicateKeyword("beep")) { try Detector(models: [beep, beep]) }
        #expect(throws: DetectorError.unknownKeyword("boop", known: ["beep"])) {
            try Detector(models: [beep], settings: ["boop": KeywordSettings(sensitivity: 0.4)])
        }
        #expect(throws: DetectorError.invalidSetting(keyword: "beep", name: "trigger level", value: "0", expected: "an integer ≥ 1")) {
            try Detector(models: [beep], settings: ["beep": KeywordSettings(triggerLevel: 0)])
        }
    }

    @Test func modelsWithDifferentFrontendsRunSideBySide() throws {
        var slower = ToneModels.model(keyword: "slow beep", frequency: 1_000)
        slower.frontend.frameShift = 320
        let signal = ToneModels.signal(seconds: 4, tones: [(1, 1_000)])
        let found = try Detector(models: [ToneModels.model(keyword: "beep", frequency: 1_000), slower]).process(signal)
        #expect(Set(found.map(\.keyword)) == ["beep", "slow beep"])
        #expect(found.map(\.time) == found.map(\.time).sorted())
    }
}
