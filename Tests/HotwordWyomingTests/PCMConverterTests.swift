import Foundation
import HotwordWyoming
import Testing

/// Wyoming audio in any rate, width and channel count becomes the detector's 16 kHz mono Float.
@Suite struct PCMConverterTests {
    /// Little-endian bytes of `values` as `width`-byte integers (8-bit: unsigned, offset 128).
    private func pcm(_ values: [Int], width: Int) -> [UInt8] {
        values.flatMap { value -> [UInt8] in
            let stored = width == 1 ? value + 128 : value
            return (0..<width).map { UInt8(truncatingIfNeeded: stored >> (8 * $0)) }
        }
    }

    private func convert(_ bytes: [UInt8], _ format: PCMFormat) throws -> [Float] {
        let converter = try PCMConverter(format: format)
        var output: [Float] = []
        try converter.convert(bytes, appendingTo: &output)
        try converter.flush(appendingTo: &output)
        return output
    }

    @Test(arguments: [1, 2, 3, 4])
    func everyWidthScalesToTheSameFullScale(width: Int) throws {
        let full = 1 << (8 * width - 1)
        let output = try convert(pcm([0, full / 2, -full / 2, -full, full - 1], width: width), PCMFormat(rate: 16_000, width: width, channels: 1))
        #expect(output.count == 5)
        #expect(output[0] == 0 && output[1] == 0.5 && output[2] == -0.5 && output[3] == -1)
        #expect(abs(output[4] - 1) <= 1 / Float(full))
    }

    @Test func sixteenBitIsDividedBy32768AsEverywhereElseInHotword() throws {
        #expect(try convert(pcm([1, -1, 16_384], width: 2), PCMFormat(rate: 16_000, width: 2, channels: 1)) == [1 / 32_768, -1 / 32_768, 0.5])
    }

    @Test func channelsAreAveraged() throws {
        // Frames (left, right, centre): (0.5, -0.5, 0.25) and (0.25, 0.25, 0.25).
        let output = try convert(pcm([16_384, -16_384, 8_192, 8_192, 8_192, 8_192], width: 2), PCMFormat(rate: 16_000, width: 2, channels: 3))
        #expect(output.count == 2)
        #expect(abs(output[0] - 0.25 / 3) < 1e-6 && abs(output[1] - 0.25) < 1e-6)
    }

    @Test(arguments: [8_000, 22_050, 44_100, 48_000])
    func otherRatesAreResampledTo16kHzKeepingPitchAndLevel(rate: Int) throws {
        // One second of a 1 kHz sine at half scale, stereo, in chunks of odd sizes.
        let frames = (0..<rate).map { Int((0.5 * sin(2 * Double.pi * 1_000 * Double($0) / Double(rate)) * 32_767).rounded()) }
        let converter = try PCMConverter(format: PCMFormat(rate: rate, width: 2, channels: 2))
        var output: [Float] = []
        var start = 0
        while start < frames.count {
            let end = min(start + 317, frames.count)
            try converter.convert(pcm(frames[start..<end].flatMap { [$0, $0] }, width: 2), appendingTo: &output)
            start = end
        }
        try converter.flush(appendingTo: &output)
        #expect(abs(output.count - 16_000) <= 2, "\(output.count) samples for one second")
        let middle = Array(output[2_000..<14_000])
        let crossings = zip(middle, middle.dropFirst()).filter { $0 < 0 && $1 >= 0 }.count
        #expect(abs(crossings - 750) <= 1, "1 kHz over 0.75 s: \(crossings) upward zero crossings")
        let peak = middle.map(abs).max() ?? 0
        #expect(abs(peak - 0.5) < 0.02, "peak \(peak)")
    }

    @Test func aPayloadOfPartialFramesOrAnUnsupportedFormatIsAnError() throws {
        let stereo = try PCMConverter(format: PCMFormat(rate: 16_000, width: 2, channels: 2))
        var output: [Float] = []
        #expect(throws: PCMConversionError.partialFrame(bytes: 6, bytesPerFrame: 4)) { try stereo.convert([0, 0, 0, 0, 0, 0], appendingTo: &output) }
        for format in [PCMFormat(rate: 16_000, width: 5, channels: 1), PCMFormat(rate: 0, width: 2, channels: 1),
                       PCMFormat(rate: 16_000, width: 2, channels: 0), PCMFormat(rate: 10_000_000, width: 2, channels: 1)] {
            #expect(throws: PCMConversionError.self, "\(format)") { try PCMConverter(format: format) }
        }
    }
}

@Suite struct WyomingEndpointTests {
    @Test func tcpAndUnixAddressesParseAndPrintBack() throws {
        #expect(try WyomingEndpoint(parsing: "tcp://0.0.0.0:10400") == .tcp(host: "0.0.0.0", port: 10_400))
        #expect(try WyomingEndpoint(parsing: "tcp://[::1]:10400") == .tcp(host: "::1", port: 10_400))
        #expect(try WyomingEndpoint(parsing: "unix:///run/hotword/wyoming.sock") == .unix(path: "/run/hotword/wyoming.sock"))
        for text in ["tcp://0.0.0.0:10400", "tcp://[::1]:0", "unix:///tmp/x.sock"] {
            #expect(try WyomingEndpoint(parsing: text).description == text)
        }
        for bad in ["0.0.0.0:10400", "tcp://0.0.0.0", "tcp://:10400", "tcp://host:70000", "tcp://host:port", "unix://relative.sock", "http://x:1"] {
            #expect(throws: WyomingEndpointError.self, "\(bad)") { try WyomingEndpoint(parsing: bad) }
        }
    }
}
