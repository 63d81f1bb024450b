import Foundation
@testable import HotwordAssistant
import HotwordAudio
import HotwordTestSupport
import Testing

/// AudioOutput on a real ALSA loudspeaker (a file-plugin device, see ALSATestDevices).
@Suite struct AudioOutputTests {
    /// Holds the first thread that passes until `open()`; later ones pass freely.
    final class Gate: @unchecked Sendable {  // @unchecked: all state is guarded by `condition`
        private let condition = NSCondition()
        private var passed = 0
        private var isOpen = false

        /// Whether a thread has reached the gate.
        var reached: Bool { condition.withLock { passed > 0 } }

        func pass() {
            condition.withLock {
                passed += 1
                guard passed == 1 else { return }
                while !isOpen { condition.wait() }
            }
        }

        func open() {
            condition.withLock {
                isOpen = true
                condition.broadcast()
            }
        }
    }

    @Test func anInterruptBetweenTakingASoundAndPlayingItSilencesIt() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let played = folder.appendingPathComponent("played.raw")
        let device = try PlaybackDevice(PlaybackConfiguration(device: ALSATestDevices.playback(into: played), sampleRate: 16_000))
        // The player thread marks a sound as its own (which asks for the capture position) after
        // taking it from the queue and before playing it: the gate holds it there.
        let gate = Gate()
        let output = AudioOutput(device: device, ownOutput: OwnOutputLog(capturePosition: { gate.pass(); return 0 }))
        let tone = (0..<16_000).map { 0.5 * sin(Float($0) * 0.1) }

        let playing = Task { await output.play(tone, sampleRate: 16_000, kind: .sound, epoch: output.currentEpoch) }
        while !gate.reached { try await Task.sleep(for: .milliseconds(5)) }
        output.interrupt()
        try await Task.sleep(for: .milliseconds(300))  // the device is stopped on the output's own queue
        gate.open()
        let outcome = await playing.value
        output.close()

        #expect(outcome == .interrupted)
        let bytes = try Data(contentsOf: played).count
        #expect(bytes == 0, "\(bytes / 2) samples of a sound interrupted before it started were played")
    }
}
