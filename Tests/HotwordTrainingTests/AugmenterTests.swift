import Foundation
import HotwordAudio
import HotwordCore
import HotwordTestSupport
@testable import HotwordTraining
import Testing

@Suite struct AugmenterTests {
    let frontend = FrontendConfig()
    let frames = 183

    func augmenter() throws -> Augmenter {
        try Augmenter(settings: AugmentationSettings(), sources: AugmentationSources(noise: [], roomResponses: []),
                      frontend: frontend, frames: frames)
    }

    func recording(_ name: String) throws -> [Float] {
        try AudioFileReader.read(TestPaths.sharedData.appendingPathComponent("keywords/\(name)")).samples
    }

    /// What a window cut after resampling the whole clip would hold: the reference that
    /// `playedWindow`, which resamples only the window's stretch, must agree with.
    func referenceWindow(of clip: [Float], endingAt end: Int, speed: Float, length: Int) throws -> [Float] {
        let whole = speed == 1 ? clip : SpeedPerturbation(speed: Double(speed)).apply(clip)
        let windowEnd = Int((Float(end) / speed).rounded())
        return (windowEnd - length..<windowEnd).map { whole.indices.contains($0) ? whole[$0] : 0 }
    }

    /// Mean absolute difference of two signals' log-mel features (natural log units).
    func featureDistance(_ a: [Float], _ b: [Float]) throws -> Float {
        let extractor = try FeatureExtractor(config: frontend)
        let x = extractor.frames(of: a).values
        extractor.reset()
        let y = extractor.frames(of: b).values
        return zip(x, y).map { abs($0 - $1) }.reduce(0, +) / Float(x.count)
    }

    @Test(arguments: [Float(0.88), 0.95, 1.0, 1.12])
    func aSpeedPerturbedWindowMatchesResamplingTheWholeClip(speed: Float) throws {
        let augmenter = try augmenter()
        for name in ["alexa/0.flac", "jarvis/fe73470c-a034-4c6f-ade2-5ed1b0809b6b.flac"] {
            let clip = try recording(name)
            let bounds = try #require(SpeechBounds.find(in: clip))
            let end = bounds.end + 640
            let played = augmenter.playedWindow(of: clip, endingAt: end, speed: speed, speech: bounds)
            #expect(played.samples.count == augmenter.windowSamples)
            let reference = try referenceWindow(of: clip, endingAt: end, speed: speed, length: augmenter.windowSamples)
            let distance = try featureDistance(played.samples, reference)
            // The control: the reference one frame (10 ms) later is what a misplaced cut looks like.
            let misplaced = try referenceWindow(of: clip, endingAt: end + Int(160 * speed), speed: speed, length: augmenter.windowSamples)
            let misplacedDistance = try featureDistance(misplaced, reference)
            #expect(distance < 0.02, "\(name) at speed \(speed): feature distance \(distance)")
            #expect(distance * 20 < misplacedDistance, "\(name): \(distance) against a misplaced cut's \(misplacedDistance)")

            // The speech keeps its place: where the word ends in the played window is where it
            // ends in the reference (the window ends 640 clip samples after the word).
            let speechEndInWindow = augmenter.windowSamples - Int((640 / speed).rounded())
            #expect(abs(played.speech.upperBound - speechEndInWindow) <= 1, "speech end \(played.speech) against \(speechEndInWindow)")
            let expectedLength = Float(bounds.length) / speed
            #expect(abs(Float(played.speech.count) - min(expectedLength, Float(speechEndInWindow))) <= 2)
        }
    }

    @Test func aWindowReachingBeforeTheClipIsSilentThere() throws {
        let augmenter = try augmenter()
        let clip = try recording("alexa/0.flac")
        let bounds = try #require(SpeechBounds.find(in: clip))
        // Ends 0.5 s into the clip: the first 1.33 s of the window lie before the clip.
        let played = augmenter.playedWindow(of: clip, endingAt: 8_000, speed: 1.1, speech: bounds)
        let before = augmenter.windowSamples - Int((8_000 / 1.1 as Float).rounded())
        let leading = played.samples[..<(before - 64)]
        #expect(leading.allSatisfy { $0 == 0 })
        #expect(played.samples[(before + 200)...].contains { $0 != 0 })
    }
}
