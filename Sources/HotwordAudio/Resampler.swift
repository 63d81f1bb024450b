import CSampleRate

/// Why a sample-rate conversion could not be set up or run.
public enum ResamplerError: Error, Equatable, CustomStringConvertible {
    /// A rate is not a positive finite number, or the ratio between them is outside what
    /// libsamplerate supports (1/256 ... 256).
    case invalidRates(input: Double, output: Double)
    /// libsamplerate reported an error; `message` is its own text (`src_strerror`).
    case library(operation: String, code: Int, message: String)

    public var description: String {
        switch self {
        case let .invalidRates(input, output):
            return "cannot resample from \(input) Hz to \(output) Hz: rates must be positive and "
                + "their ratio within 1/256 ... 256"
        case let .library(operation, code, message):
            return "libsamplerate \(operation) failed (error \(code)): \(message)"
        }
    }

    init(operation: String, code: Int32) {
        let message = src_strerror(code).map { String(cString: $0) } ?? "unknown error"
        self = .library(operation: operation, code: Int(code), message: message)
    }
}

/// Streaming sample-rate converter for mono Float audio, backed by libsamplerate.
///
/// Band-limited sinc interpolation (not linear) because wake-word features are computed from the
/// spectrum: linear interpolation folds energy above the new Nyquist back into the speech band.
/// One instance converts one stream: feed it blocks with `process`, call `flush` at the end of
/// the stream (which also makes it ready for the next stream), or `reset` to drop a stream.
/// After construction it allocates nothing, except to grow the caller's output array.
/// Not thread-safe: one owner at a time.
public final class Resampler {
    /// libsamplerate's sinc converters. Medium is the default: its pass band covers speech up to
    /// 90% of the output Nyquist frequency at several times the speed of `best`, which matters on a
    /// Raspberry Pi converting live audio while the detector runs.
    public enum Quality: Sendable, CaseIterable {
        case best, medium, fastest

        fileprivate var converterType: Int32 {
            switch self {
            case .best: Int32(SRC_SINC_BEST_QUALITY)
            case .medium: Int32(SRC_SINC_MEDIUM_QUALITY)
            case .fastest: Int32(SRC_SINC_FASTEST)
            }
        }
    }

    public let inputRate: Double
    public let outputRate: Double
    public let quality: Quality
    /// `outputRate / inputRate`: output samples per input sample.
    public var ratio: Double { outputRate / inputRate }

    private let state: OpaquePointer
    /// Where libsamplerate writes before we append to the caller's array; fixed size so that
    /// `process` never allocates, whatever the block size.
    private let scratch: UnsafeMutableBufferPointer<Float>
    private static let scratchCapacity = 4096
    /// Stands in for the input at `flush`: libsamplerate silently returns nothing for a null input
    /// pointer, even with zero frames and end of input set, so the tail would be lost.
    private let emptyInput: UnsafeMutablePointer<Float>

    public init(from inputRate: Double, to outputRate: Double, quality: Quality = .medium) throws(ResamplerError) {
        guard inputRate.isFinite, outputRate.isFinite, inputRate > 0, outputRate > 0,
              src_is_valid_ratio(outputRate / inputRate) != 0
        else { throw .invalidRates(input: inputRate, output: outputRate) }
        var code: Int32 = 0
        guard let state = src_new(quality.converterType, 1, &code) else {
            throw ResamplerError(operation: "src_new", code: code)
        }
        self.inputRate = inputRate
        self.outputRate = outputRate
        self.quality = quality
        self.state = state
        scratch = .allocate(capacity: Self.scratchCapacity)
        emptyInput = .allocate(capacity: 1)
    }

    deinit {
        src_delete(state)
        scratch.deallocate()
        emptyInput.deallocate()
    }

    /// Converts the next block of the stream and appends the result to `output`.
    /// The sinc filter looks ahead, so the last few milliseconds of a block come out with a later
    /// block or with `flush`. Reserve capacity in `output` (about `ratio × input.count` + 64) and
    /// reuse it (`removeAll(keepingCapacity: true)`) to keep a live loop allocation-free.
    public func process(_ input: UnsafeBufferPointer<Float>, appendingTo output: inout [Float]) throws(ResamplerError) {
        try run(input, endOfInput: false, appendingTo: &output)
    }

    /// Array convenience for `process(_:appendingTo:)`.
    public func process(_ input: [Float], appendingTo output: inout [Float]) throws(ResamplerError) {
        try input.withUnsafeBufferPointer { (buffer) throws(ResamplerError) in
            try run(buffer, endOfInput: false, appendingTo: &output)
        }
    }

    /// Ends the stream: appends the samples still held in the filter, then resets so the same
    /// instance can convert a new stream.
    public func flush(appendingTo output: inout [Float]) throws(ResamplerError) {
        try run(UnsafeBufferPointer(start: nil, count: 0), endOfInput: true, appendingTo: &output)
        reset()
    }

    /// Forgets the current stream (the filter history) without producing its tail.
    public func reset() {
        // src_reset only fails for a null state, which cannot happen here.
        _ = src_reset(state)
    }

    /// Converts a whole signal in one call.
    public static func convert(_ samples: [Float], from inputRate: Double, to outputRate: Double,
                               quality: Quality = .medium) throws(ResamplerError) -> [Float] {
        if inputRate == outputRate { return samples }  // nothing to do; skip the filter's smoothing
        let resampler = try Resampler(from: inputRate, to: outputRate, quality: quality)
        var output: [Float] = []
        output.reserveCapacity(Int((Double(samples.count) * resampler.ratio).rounded(.up)) + 64)
        try resampler.process(samples, appendingTo: &output)
        try resampler.flush(appendingTo: &output)
        return output
    }

    /// Feeds all of `input` through libsamplerate, draining its output through `scratch`.
    /// libsamplerate stops early when the output space is full, so we loop until the input is
    /// used up and a call leaves space unused (meaning nothing more is pending).
    private func run(_ input: UnsafeBufferPointer<Float>, endOfInput: Bool, appendingTo output: inout [Float]) throws(ResamplerError) {
        var consumed = 0
        while true {
            var data = SRC_DATA(
                data_in: input.baseAddress.map { $0 + consumed } ?? UnsafePointer(emptyInput),
                data_out: scratch.baseAddress,
                input_frames: input.count - consumed,
                output_frames: scratch.count,
                input_frames_used: 0,
                output_frames_gen: 0,
                end_of_input: endOfInput ? 1 : 0,
                src_ratio: ratio)
            let code = src_process(state, &data)
            if code != 0 { throw ResamplerError(operation: "src_process", code: code) }
            consumed += data.input_frames_used
            let generated = data.output_frames_gen
            output.append(contentsOf: UnsafeBufferPointer(rebasing: scratch[0..<generated]))
            if consumed >= input.count && generated < scratch.count { return }
        }
    }
}
