import Foundation
import HotwordCore
import HotwordTestSupport
@testable import HotwordTraining
import Testing

/// Takes cut out of a stream given as an array, as `hotword enroll` cuts them from a microphone.
@Suite("TakeEndpointer")
struct TakeEndpointerTests {
    static func samples(_ seconds: Double) -> Int { Int(seconds * Double(AudioFormat.sampleRate)) }

    /// Quiet room noise (about -65 dBFS), with loud noise where `loud` says, at `level(time)`.
    static func stream(_ seconds: Double, loud: [Range<Double>] = [], level: (Double) -> Float = { _ in 0.3 }) -> [Float] {
        var generator = SeededGenerator(seed: 4)
        var audio = generator.floats(samples(seconds), scale: 0.001)
        for range in loud {
            for index in samples(range.lowerBound)..<samples(range.upperBound) {
                audio[index] = generator.floats(1, scale: level(Double(index) / Double(AudioFormat.sampleRate)))[0]
            }
        }
        return audio
    }

    /// Reads `audio` 512 samples at a time, then reports the end of the stream.
    static func reader(_ audio: [Float]) -> (UnsafeMutableBufferPointer<Float>) -> Int {
        var next = 0
        return { buffer in
            let count = min(buffer.count, audio.count - next)
            for index in 0..<count { buffer[index] = audio[next + index] }
            next += count
            return count
        }
    }

    @Test func aTakeEndsSixTenthsOfASecondAfterTheSpeech() {
        let endpointer = TakeEndpointer(background: Self.stream(TakeEndpointer.backgroundSeconds))
        #expect(!endpointer.roomIsNoisy)
        guard case .take(let take) = endpointer.nextTake(read: Self.reader(Self.stream(4, loud: [1.0..<1.5]))) else {
            Issue.record("no take")
            return
        }
        #expect(take.end == .trailingSilence)
        let afterSpeech = Double(take.samples.count - take.speechStart) / Double(AudioFormat.sampleRate) - 0.5
        #expect(abs(afterSpeech - 0.6) < 0.03, "ended \(afterSpeech) s after the speech")
    }

    @Test func silenceSpeechWithoutEndAndAnEndedStreamAreToldApart() {
        let endpointer = TakeEndpointer(background: Self.stream(TakeEndpointer.backgroundSeconds))
        let quiet = endpointer.nextTake(read: Self.reader(Self.stream(9)))
        // Syllables (180 ms, 70 ms apart) for longer than a take may last, ever louder (40 dB in
        // 12 s), so the voice-activity detector's rising noise floor never catches up with them.
        let syllables = stride(from: 1.0, to: 12.8, by: 0.25).map { $0..<($0 + 0.18) }
        let endless = endpointer.nextTake(read: Self.reader(Self.stream(13, loud: syllables) { 0.003 * Float(pow(10, $0 / 6)) }))
        let ended = endpointer.nextTake(read: Self.reader(Self.stream(1)))
        #expect({ if case .noSpeech = quiet { true } else { false } }())
        #expect({ if case .endless = endless { true } else { false } }())
        #expect({ if case .interrupted = ended { true } else { false } }())
    }

    @Test func aLoudRoomIsNoticed() {
        var generator = SeededGenerator(seed: 5)
        #expect(TakeEndpointer(background: generator.floats(Self.samples(1.5), scale: 0.1)).roomIsNoisy)
    }
}
