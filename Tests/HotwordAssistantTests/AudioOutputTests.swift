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

    /// Muted, a sound plays on unheard and is not marked as the assistant's own; unmuted, the
    /// rest is heard and marked again. A paced loudspeaker, whose samples stand for the capture
    /// position.
    @Test func aMutedSoundPlaysOnUnheardAndIsNotMarkedAsOwnSound() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let loudspeaker = try PacedLoudspeaker(folder: folder, sampleRate: 16_000, speed: 4)
        defer { loudspeaker.close() }
        let device = try PlaybackDevice(PlaybackConfiguration(device: loudspeaker.deviceName, sampleRate: 16_000))
        let position: @Sendable () -> UInt64 = { UInt64(loudspeaker.samples.count) }
        let log = OwnOutputLog(capturePosition: position)
        let output = AudioOutput(device: device, ownOutput: log)
        let tone = (0..<160_000).map { 0.5 * sin(Float($0) * 0.1) }

        let playing = Task { await output.play(tone, sampleRate: 16_000, kind: .sound, epoch: output.currentEpoch) }
        while loudspeaker.playedSeconds < 0.5 { try await Task.sleep(for: .milliseconds(5)) }
        let playingHeard = Int(position())
        output.mute()
        let muted = Int(position())
        while loudspeaker.playedSeconds < 5 { try await Task.sleep(for: .milliseconds(5)) }
        let stillMuted = Int(position())
        output.unmute()
        let unmuted = Int(position())
        let outcome = await playing.value
        output.close()
        while loudspeaker.samples.count < tone.count { try await Task.sleep(for: .milliseconds(5)) }
        let played = loudspeaker.samples

        #expect(outcome == .completed, "muting does not stop it")
        // What was on its way at each switch (the device's buffer and the FIFO, up to 64 KiB)
        // comes out first; then silence until the unmute, and the rest heard.
        let onTheWay = 40_000
        try #require(muted + onTheWay <= unmuted && unmuted + onTheWay <= played.count,
                     "muted at \(muted), unmuted at \(unmuted) of \(played.count): the pacing fell behind")
        #expect(played[(muted + onTheWay)..<unmuted].allSatisfy { $0 == 0 }, "silent from \(muted + onTheWay) to \(unmuted)")
        #expect(played[(unmuted + onTheWay)...].contains { $0 != 0 }, "the end heard")
        #expect(log.strongest(in: UInt64(muted)..<UInt64(stillMuted), tail: 0) == nil)
        #expect(log.strongest(in: UInt64(playingHeard - 100)..<UInt64(playingHeard), tail: 0) == .sound)
        #expect(log.strongest(in: UInt64(unmuted)..<UInt64(unmuted + 100), tail: 0) == .sound)
    }

    /// An interrupt ends the mute: the cue after a confirmed wake word is heard.
    @Test func anInterruptUnmutes() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let played = folder.appendingPathComponent("played.raw")
        let device = try PlaybackDevice(PlaybackConfiguration(device: ALSATestDevices.playback(into: played), sampleRate: 16_000))
        let output = AudioOutput(device: device, ownOutput: OwnOutputLog(capturePosition: { 0 }))
        output.volume = 0.5
        output.mute()
        #expect(output.volume == 0.5, "the level it will have again")
        output.interrupt()
        let tone = (0..<1_600).map { 0.5 * sin(Float($0) * 0.1) }
        let outcome = await output.play(tone, sampleRate: 16_000, kind: .sound, epoch: output.currentEpoch)
        output.close()

        #expect(outcome == .completed && output.volume == 0.5)
        let bytes = try Data(contentsOf: played)
        #expect(bytes.count >= 3_200 && bytes.contains { $0 != 0 }, "heard after the interrupt")
    }
}
