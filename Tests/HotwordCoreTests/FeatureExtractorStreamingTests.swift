import HotwordCore
import Testing

/// Chunking never changes the features; the stream bookkeeping is exact.
@Suite struct FeatureExtractorStreamingTests {
    static let configs: [FrontendConfig] = [
        FrontendConfig(),
        FrontendConfig(melScale: .slaney, cepstralCoefficients: 13, normalisation: .runningMean(timeConstant: 0.2)),
        FrontendConfig(normalisation: .perChannelEnergyDefaults),
        // Hop longer than the frame: samples between frames are skipped.
        FrontendConfig(frameLength: 256, frameShift: 300, fftSize: 256, melBands: 20),
        // Tiny hop: many frames per chunk.
        FrontendConfig(frameLength: 400, frameShift: 37, melBands: 10),
    ]

    @Test(arguments: configs)
    func randomChunkingsEqualWholeSignalBitForBit(config: FrontendConfig) throws {
        let signal = TestSignal.mixture(count: 12_345, seed: 11)
        let whole = try FeatureExtractor(config: config).frames(of: signal)
        #expect(whole.frameCount == config.frameCount(sampleCount: signal.count))

        var random = SplitMix64(seed: 5)
        let streamed = try FeatureExtractor(config: config)
        for round in 0..<4 {
            streamed.reset()
            // Round 0: every chunk 1 sample; then random mixes of tiny, period-sized and huge chunks.
            var chunkSizes: [Int] = []
            var total = 0
            while total < signal.count {
                chunkSizes.append(round == 0 ? 1 : [1, 7, 160, 4_000, Int.random(in: 1...1_000, using: &random)]
                    .randomElement(using: &random)!)
                total += chunkSizes.last!
            }
            #expect(Self.stream(signal, chunkSizes: chunkSizes, through: streamed) == whole.values, "round \(round)")
        }
    }

    /// Frame t of a long stream (many history wrap-arounds) is exactly the one frame of its
    /// own samples [t·S, t·S + N) fed to a fresh extractor.
    @Test(arguments: [FrontendConfig(), FrontendConfig(frameLength: 256, frameShift: 300, fftSize: 256, melBands: 20)])
    func everyFrameSeesExactlyItsOwnSamples(config: FrontendConfig) throws {
        let signal = TestSignal.mixture(count: 40_000, seed: 6)
        let stream = try FeatureExtractor(config: config).frames(of: signal)
        let single = try FeatureExtractor(config: config)
        #expect(stream.frameCount == config.frameCount(sampleCount: signal.count))
        for t in 0..<stream.frameCount {
            let start = t * config.frameShift
            let own = single.frames(of: Array(signal[start..<start + config.frameLength]))
            #expect(own.values == Array(stream[frame: t]), "frame \(t)")
        }
    }

    @Test func frameCountFollowsFormula() throws {
        let extractor = try FeatureExtractor(config: FrontendConfig())
        // 400-sample frames every 160 samples: ⌊(n − 400) / 160⌋ + 1 frames once n ≥ 400.
        for (samples, frames) in [(0, 0), (1, 0), (399, 0), (400, 1), (559, 1), (560, 2), (561, 2), (16_000, 98)] {
            #expect(extractor.frames(of: [Float](repeating: 0.1, count: samples)).frameCount == frames)
            #expect(extractor.framesProduced == frames)
            #expect(FrontendConfig().frameCount(sampleCount: samples) == frames)
        }
        let sparse = FrontendConfig(frameLength: 256, frameShift: 300, fftSize: 256)
        #expect(sparse.frameCount(sampleCount: 855) == 2)
        #expect(sparse.frameCount(sampleCount: 856) == 3)
    }

    @Test func framesArriveAsSoonAsTheirLastSampleDoes() throws {
        let extractor = try FeatureExtractor(config: FrontendConfig())
        var delivered: [Int] = []
        let signal = TestSignal.mixture(count: 1_000)
        for n in signal.indices {
            signal[n...n].withUnsafeBufferPointer { sample in
                extractor.process(sample) { _ in delivered.append(n + 1) }
            }
        }
        #expect(delivered == [400, 560, 720, 880])
        #expect(extractor.framesProduced == 4)
    }

    @Test func resetStartsAFreshStream() throws {
        let config = FrontendConfig(normalisation: .runningMean(timeConstant: 0.1))
        let signal = TestSignal.mixture(count: 3_000, seed: 4)
        let extractor = try FeatureExtractor(config: config)
        let first = extractor.frames(of: signal)
        _ = Self.stream(TestSignal.mixture(count: 777, seed: 9), chunkSizes: [777], through: extractor)
        extractor.reset()
        #expect(extractor.framesProduced == 0)
        #expect(Self.stream(signal, chunkSizes: [1_000, 2_000], through: extractor) == first.values)
    }

    /// Extractors built and run on many threads at once (FFTW planning is serialised) agree.
    @Test func concurrentExtractorsAgree() async throws {
        let signal = TestSignal.mixture(count: 4_000, seed: 2)
        let expected = try FeatureExtractor(config: FrontendConfig()).frames(of: signal)
        let results = try await withThrowingTaskGroup(of: FeatureMatrix.self) { group in
            for _ in 0..<16 {
                group.addTask { try FeatureExtractor(config: FrontendConfig()).frames(of: signal) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 16)
        #expect(results.allSatisfy { $0 == expected })
    }

    /// Feeds `signal` in chunks of the given sizes (the last one clipped) and collects the frames.
    static func stream(_ signal: [Float], chunkSizes: [Int], through extractor: FeatureExtractor) -> [Float] {
        var values: [Float] = []
        var start = 0
        for size in chunkSizes where start < signal.count {
            let end = min(start + size, signal.count)
            signal[start..<end].withUnsafeBufferPointer { chunk in
                extractor.process(chunk) { values.append(contentsOf: $0) }
            }
            start = end
        }
        return values
    }
}
