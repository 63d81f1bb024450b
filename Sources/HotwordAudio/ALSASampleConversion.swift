/// Conversions between interleaved device frames and mono Float samples in [-1, 1].
/// Integer scaling is by 2^15 / 2^31 so 16-bit values survive a round trip exactly.
enum ALSASampleConversion {
    /// Averages the channels of `frames` interleaved frames at `raw` into `mono`.
    static func downmix(_ raw: UnsafeRawPointer, frames: Int, format: AudioStreamFormat,
                        into mono: UnsafeMutablePointer<Float>) {
        let channels = format.channels
        switch format.sampleFormat {
        case .signed16:
            let scale = 1 / (32768 * Float(channels))
            let samples = raw.assumingMemoryBound(to: Int16.self)
            for frame in 0..<frames {
                var sum: Int32 = 0
                for channel in 0..<channels { sum += Int32(Int16(littleEndian: samples[frame * channels + channel])) }
                mono[frame] = Float(sum) * scale
            }
        case .signed32:
            let scale = 1 / (2_147_483_648 * Double(channels))
            let samples = raw.assumingMemoryBound(to: Int32.self)
            for frame in 0..<frames {
                var sum: Int64 = 0
                for channel in 0..<channels { sum += Int64(Int32(littleEndian: samples[frame * channels + channel])) }
                mono[frame] = Float(Double(sum) * scale)
            }
        case .float32:
            let scale = 1 / Float(channels)
            let samples = raw.assumingMemoryBound(to: UInt32.self)
            for frame in 0..<frames {
                var sum: Float = 0
                for channel in 0..<channels {
                    sum += Float(bitPattern: UInt32(littleEndian: samples[frame * channels + channel]))
                }
                mono[frame] = sum * scale
            }
        }
    }

    /// Writes `mono` × `volume` into every channel of `mono.count` interleaved frames at `raw`,
    /// clipping to the format's range.
    static func upmix(_ mono: UnsafeBufferPointer<Float>, volume: Float, format: AudioStreamFormat,
                      into raw: UnsafeMutableRawPointer) {
        let channels = format.channels
        switch format.sampleFormat {
        case .signed16:
            let samples = raw.assumingMemoryBound(to: Int16.self)
            for (frame, value) in mono.enumerated() {
                let scaled = (value * volume * 32768).rounded()
                let clipped = Int16(max(-32768, min(32767, scaled.isNaN ? 0 : scaled))).littleEndian
                for channel in 0..<channels { samples[frame * channels + channel] = clipped }
            }
        case .signed32:
            let samples = raw.assumingMemoryBound(to: Int32.self)
            for (frame, value) in mono.enumerated() {
                let scaled = (Double(value) * Double(volume) * 2_147_483_648).rounded()
                let clipped = Int32(max(-2_147_483_648, min(2_147_483_647, scaled.isNaN ? 0 : scaled))).littleEndian
                for channel in 0..<channels { samples[frame * channels + channel] = clipped }
            }
        case .float32:
            let samples = raw.assumingMemoryBound(to: UInt32.self)
            for (frame, value) in mono.enumerated() {
                let scaled = value * volume
                let bits = (scaled.isNaN ? 0 : max(-1, min(1, scaled))).bitPattern.littleEndian
                for channel in 0..<channels { samples[frame * channels + channel] = bits }
            }
        }
    }
}
