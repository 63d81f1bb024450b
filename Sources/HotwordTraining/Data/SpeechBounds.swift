import Foundation

/// Where the speech in a short clip starts and ends, from 10 ms block energies: the first and
/// last block above max(noise floor + 10 dB, peak − 35 dB). Keyword recordings hold one word
/// with silence or room noise around it, so this finds the word's end, which positive training
/// windows are aligned to.
public struct SpeechBounds: Sendable, Hashable {
    public var start: Int
    public var end: Int

    public var length: Int { end - start }

    public static let blockLength = 160

    public static func find(in samples: [Float]) -> SpeechBounds? {
        let blocks = samples.count / blockLength
        guard blocks >= 3 else { return nil }
        let decibels = (0..<blocks).map { block -> Float in
            var energy: Float = 0
            for n in (block * blockLength)..<((block + 1) * blockLength) { energy += samples[n] * samples[n] }
            return 10 * log10(max(energy / Float(blockLength), 1e-12))
        }
        let sorted = decibels.sorted()
        let floor = sorted[sorted.count / 10], peak = sorted[sorted.count - 1]
        let threshold = max(floor + 10, peak - 35)
        guard peak > threshold, let first = decibels.firstIndex(where: { $0 > threshold }),
              let last = decibels.lastIndex(where: { $0 > threshold }) else { return nil }
        return SpeechBounds(start: first * blockLength, end: (last + 1) * blockLength)
    }
}
