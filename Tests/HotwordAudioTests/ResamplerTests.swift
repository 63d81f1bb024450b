import Testing
@testable import HotwordAudio

@Suite struct ResamplerTests {
    @Test(arguments: [44_100.0, 48_000.0, 8_000.0, 22_050.0])
    func sineKeepsFrequencyAmplitudeAndLength(inputRate: Double) throws {
        let tone = 1_000.0
        let input = Signals.sine(frequency: tone, sampleRate: inputRate, seconds: 1, amplitude: 0.5)
        let output = try Resampler.convert(input, from: inputRate, to: 16_000)
        let expectedCount = Double(input.count) * 16_000 / inputRate
        #expect(abs(Double(output.count) - expectedCount) <= 2, "got \(output.count), expected ≈ \(expectedCount)")
        let middle = Signals.middle(output)
        #expect(abs(Signals.frequency(of: middle, sampleRate: 16_000) - tone) < 0.05)
        #expect(abs(Signals.sineAmplitude(middle) - 0.5) < 0.005)
    }

    /// A tone above the output Nyquist frequency must be filtered out, not folded into the speech
    /// band (12 kHz at 48 kHz would alias to 4 kHz with naive decimation or linear interpolation).
    @Test func toneAboveOutputNyquistIsRemoved() throws {
        let input = Signals.sine(frequency: 12_000, sampleRate: 48_000, seconds: 0.5, amplitude: 0.5)
        let output = try Resampler.convert(input, from: 48_000, to: 16_000)
        #expect(Signals.sineAmplitude(Signals.middle(output)) < 0.005)
    }

    @Test(arguments: [44_100.0, 8_000.0])
    func streamingInRandomChunksEqualsOneShot(inputRate: Double) throws {
        let input = Signals.sine(frequency: 440, sampleRate: inputRate, seconds: 2, amplitude: 0.8)
        let oneShot = try Resampler.convert(input, from: inputRate, to: 16_000)

        let resampler = try Resampler(from: inputRate, to: 16_000)
        var generator = SeededGenerator(seed: 7)
        var streamed: [Float] = []
        var start = 0
        while start < input.count {
            let end = min(input.count, start + Int.random(in: 0...3_000, using: &generator))
            try resampler.process(Array(input[start..<end]), appendingTo: &streamed)
            start = end
        }
        try resampler.flush(appendingTo: &streamed)

        #expect(streamed.count == oneShot.count)
        let worst = zip(streamed, oneShot).map { abs($0 - $1) }.max() ?? 0
        #expect(worst < 1e-5)
    }

    /// `flush` ends one stream and leaves the converter ready for the next; `reset` drops a stream.
    @Test func reusableAfterFlushAndReset() throws {
        let first = Signals.sine(frequency: 300, sampleRate: 48_000, seconds: 0.3)
        let second = Signals.sine(frequency: 2_000, sampleRate: 48_000, seconds: 0.3)
        let expected = try Resampler.convert(second, from: 48_000, to: 16_000)
        let resampler = try Resampler(from: 48_000, to: 16_000)

        var output: [Float] = []
        try resampler.process(first, appendingTo: &output)
        try resampler.flush(appendingTo: &output)
        output.removeAll(keepingCapacity: true)
        try resampler.process(second, appendingTo: &output)
        try resampler.flush(appendingTo: &output)
        #expect(output == expected)

        output.removeAll(keepingCapacity: true)
        try resampler.process(first, appendingTo: &output)
        resampler.reset()
        output.removeAll(keepingCapacity: true)
        try resampler.process(second, appendingTo: &output)
        try resampler.flush(appendingTo: &output)
        #expect(output == expected)
    }

    @Test func emptyInputGivesEmptyOutput() throws {
        #expect(try Resampler.convert([], from: 44_100, to: 16_000).isEmpty)
    }

    @Test(arguments: [(0.0, 16_000.0), (-8_000.0, 16_000.0), (16_000.0, .nan), (1_000.0, 300_000.0)])
    func invalidRatesAreRejected(input: Double, output: Double) {
        let error = #expect(throws: ResamplerError.self) { _ = try Resampler(from: input, to: output) }
        guard case .invalidRates = error else { Issue.record("expected invalidRates, got \(String(describing: error))"); return }
        #expect(error?.description.contains("Hz") == true)
    }

    @Test func errorTextComesFromLibsamplerate() {
        let error = ResamplerError(operation: "src_process", code: 1)
        #expect(error.description.contains("src_process"))
        guard case let .library(_, code, message) = error else { Issue.record("wrong case"); return }
        #expect(code == 1)
        #expect(!message.isEmpty && message != "unknown error")
    }
}
