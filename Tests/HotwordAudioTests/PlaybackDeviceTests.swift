import Foundation
import HotwordAudio
import HotwordTestSupport
import Testing

/// PlaybackDevice through real alsa-lib, with file-plugin devices (see ALSATestDevices).
@Suite struct PlaybackDeviceTests {
    private func randomSamples(_ count: Int, seed: UInt64) -> [Int16] {
        var random = SeededGenerator(seed: seed)
        return [Int16.min, Int16.max] + (2..<count).map { _ in Int16.random(in: .min ... .max, using: &random) }
    }

    private func played(_ file: URL) throws -> [Int16] {
        ALSATestDevices.samples(ofRaw: try Data(contentsOf: file))
    }

    @Test func playedSamplesLandInTheOutputFileExactly() throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("played.raw")
        let input = randomSamples(20_000, seed: 4)

        let speaker = try PlaybackDevice(PlaybackConfiguration(device: ALSATestDevices.playback(into: output), sampleRate: 16_000))
        #expect(try speaker.play(input.map { Float($0) / 32768 }, sampleRate: 16_000) == .completed)
        #expect(speaker.drain() == .completed)
        let stats = speaker.stats
        speaker.close()

        #expect(try played(output) == input)
        #expect(stats.format.sampleFormat == .signed16 && stats.format.sampleRate == 16_000 && stats.format.channels == 1)
        #expect(stats.frames == input.count)
    }

    @Test func consecutivePlaysFormOneStreamAndTheDeviceIsReusableAfterDrain() throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("played.raw")
        let first = randomSamples(3_000, seed: 5), second = randomSamples(777, seed: 6), third = randomSamples(1_500, seed: 7)

        let speaker = try PlaybackDevice(PlaybackConfiguration(device: ALSATestDevices.playback(into: output), sampleRate: 16_000))
        try speaker.play(first.map { Float($0) / 32768 }, sampleRate: 16_000)
        try speaker.play(second.map { Float($0) / 32768 }, sampleRate: 16_000)
        speaker.drain()
        try speaker.play(third.map { Float($0) / 32768 }, sampleRate: 16_000)
        speaker.drain()
        speaker.close()

        #expect(try played(output) == first + second + third)
    }

    @Test func aStereoOnlyDeviceGetsTheMonoSignalInBothChannels() throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("stereo.raw")
        let input = randomSamples(5_000, seed: 8)

        let speaker = try PlaybackDevice(PlaybackConfiguration(device: ALSATestDevices.stereoPlayback(into: output), sampleRate: 16_000))
        try speaker.play(input.map { Float($0) / 32768 }, sampleRate: 16_000)
        speaker.drain()
        #expect(speaker.stats.format.channels == 2)
        speaker.close()

        #expect(try played(output) == input.flatMap { [$0, $0] })
    }

    @Test func audioAtAnotherRateIsResampledToTheDeviceRate() throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("resampled.raw")
        let sine = Signals.sine(frequency: 440, sampleRate: 22_050, seconds: 1, amplitude: 0.5)

        let speaker = try PlaybackDevice(PlaybackConfiguration(device: ALSATestDevices.playback(into: output), sampleRate: 16_000))
        try speaker.play(sine, sampleRate: 22_050)
        speaker.drain()
        speaker.close()

        let result = try played(output).map { Float($0) / 32768 }
        #expect(abs(result.count - 16_000) <= 2)
        let middle = Signals.middle(result)
        #expect(abs(Signals.frequency(of: middle, sampleRate: 16_000) - 440) < 0.5)
        #expect(abs(Signals.sineAmplitude(middle) - 0.5) < 0.01)
    }

    @Test func volumeScalesWhatIsPlayedAndStaysWithinZeroToOne() throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("volume.raw")
        let input = randomSamples(4_000, seed: 9).map { $0 & ~1 }  // even, so halves are exact

        let speaker = try PlaybackDevice(PlaybackConfiguration(device: ALSATestDevices.playback(into: output), sampleRate: 16_000,
                                                               volume: 0.5))
        #expect(speaker.volume == 0.5)
        try speaker.play(input.map { Float($0) / 32768 }, sampleRate: 16_000)
        speaker.volume = 0
        try speaker.play(input.map { Float($0) / 32768 }, sampleRate: 16_000)
        speaker.drain()
        speaker.close()

        #expect(try played(output) == input.map { $0 / 2 } + [Int16](repeating: 0, count: input.count))
        speaker.volume = 3
        #expect(speaker.volume == 1)
        speaker.volume = -1
        #expect(speaker.volume == 0)
        speaker.volume = .nan
        #expect(speaker.volume == 0)
    }

    /// Barge-in: a reader draining a FIFO in real time paces the device like a sound card;
    /// `stop()` from another thread must end a long `play` within a period or so.
    @Test(.timeLimit(.minutes(1)))
    func stopFromAnotherThreadEndsPlayPromptly() throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let fifo = folder.appendingPathComponent("speaker.fifo")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        // Open the reading end first (non-blocking), or the device's open of the FIFO would wait for a reader.
        let reader = open(fifo.path, O_RDONLY | O_NONBLOCK)
        #expect(reader >= 0)
        defer { close(reader) }

        let speaker = try PlaybackDevice(PlaybackConfiguration(device: ALSATestDevices.playback(into: fifo), sampleRate: 16_000,
                                                               period: .milliseconds(20), buffer: .milliseconds(100)))
        let pacer = RealTimeReader(descriptor: reader, bytesPerSecond: 32_000)
        pacer.start()
        let stopper = Thread {
            Thread.sleep(forTimeInterval: 0.3)
            speaker.stop()
        }
        let started = Date()
        stopper.start()
        let speech = [Float](repeating: 0.25, count: 16_000 * 10)
        let outcome = try speaker.play(speech, sampleRate: 16_000)
        let elapsed = Date().timeIntervalSince(started)

        #expect(outcome == .interrupted)
        #expect(elapsed >= 0.3 && elapsed < 1.5)
        // Later plays work again.
        #expect(try speaker.play([Float](repeating: 0, count: 160), sampleRate: 16_000) == .completed)
        speaker.close()
        pacer.finish()
        #expect(pacer.bytesRead < 32_000 * 3)
    }

    /// Writing into /dev/full fails with EIO like an unplugged device; once the output is
    /// switched to a real file the device is reopened and playing continues where it failed.
    @Test(.timeLimit(.minutes(1)))
    func aFailedDeviceIsReopenedAndPlayingContinues() throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("output")
        let target = folder.appendingPathComponent("played.raw")
        try FileManager.default.createSymbolicLink(atPath: output.path, withDestinationPath: "/dev/full")
        let input = randomSamples(16_000, seed: 10)

        let speaker = try PlaybackDevice(PlaybackConfiguration(
            device: ALSATestDevices.playback(into: output), sampleRate: 16_000, period: .frames(256), buffer: .frames(1_024),
            reopen: AudioReopenPolicy(initialDelay: .milliseconds(100), maximumDelay: .milliseconds(100))))
        let repair = Thread {
            Thread.sleep(forTimeInterval: 0.05)
            try? FileManager.default.removeItem(at: output)
            try? FileManager.default.createSymbolicLink(atPath: output.path, withDestinationPath: target.path)
        }
        repair.start()
        #expect(try speaker.play(input.map { Float($0) / 32768 }, sampleRate: 16_000) == .completed)
        speaker.drain()
        #expect(speaker.stats.reopens >= 1)
        speaker.close()

        let result = try played(target)
        #expect(!result.isEmpty)
        #expect(result == Array(input.suffix(result.count)))
    }

    @Test func anUnknownDeviceNameGivesAClearTypedError() throws {
        _ = ALSATestDevices.configPath
        let error = #expect(throws: AudioDeviceError.self) {
            try PlaybackDevice(PlaybackConfiguration(device: ALSATestDevices.missingName))
        }
        #expect(error?.description == "playback device '\(ALSATestDevices.missingName)' could not be opened: "
            + "No such file or directory — list devices with `hotword devices`")
    }

    @Test func aRateThatCannotBeConvertedIsATypedError() throws {
        let speaker = try PlaybackDevice(PlaybackConfiguration(device: ALSATestDevices.playback(into: URL(fileURLWithPath: "/dev/null"))))
        let error = #expect(throws: AudioDeviceError.self) {
            try speaker.play([0, 0, 0], sampleRate: 0)
        }
        guard case .invalidRequest? = error else {
            Issue.record("expected invalidRequest, got \(String(describing: error))")
            return
        }
    }
}

/// Reads a descriptor at a fixed byte rate on its own thread, like a sound card consuming audio.
private final class RealTimeReader: @unchecked Sendable {  // counters are guarded by `lock`
    private let descriptor: Int32
    private let bytesPerSecond: Int
    private let lock = NSLock()
    private var total = 0
    private var done = false
    private var thread: Thread?

    init(descriptor: Int32, bytesPerSecond: Int) {
        self.descriptor = descriptor
        self.bytesPerSecond = bytesPerSecond
    }

    var bytesRead: Int { lock.withLock { total } }

    func start() {
        let thread = Thread { [self] in
            let tick = 0.01
            var buffer = [UInt8](repeating: 0, count: Int(Double(bytesPerSecond) * tick))
            while !lock.withLock({ done }) {
                let count = read(descriptor, &buffer, buffer.count)
                if count > 0 { lock.withLock { total += count } }
                Thread.sleep(forTimeInterval: tick)
            }
        }
        self.thread = thread
        thread.start()
    }

    func finish() {
        lock.withLock { done = true }
    }
}
