import Foundation
import HotwordAudio
import HotwordTestSupport
import Testing

/// CaptureDevice through real alsa-lib, with file-plugin devices (see ALSATestDevices).
@Suite struct CaptureDeviceTests {
    @Test func capturedSamplesEqualTheInputFileExactly() throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        var random = SeededGenerator(seed: 1)
        let input = [Int16.min, Int16.max, 0, -1, 1] + (0..<15_995).map { _ in Int16.random(in: .min ... .max, using: &random) }
        let file = folder.appendingPathComponent("input.raw")
        try ALSATestDevices.rawData(input).write(to: file)

        let capture = try CaptureDevice(CaptureConfiguration(device: ALSATestDevices.capture(replaying: file)))
        // Uneven read sizes cross period boundaries in every possible way.
        var captured: [Float] = []
        var size = 1
        while captured.count < input.count {
            var block = [Float](repeating: .nan, count: min(size, input.count - captured.count))
            #expect(capture.read(into: &block) == block.count)
            captured += block
            size = size * 3 % 1_999 + 1
        }

        #expect(captured.map { Int16(exactly: $0 * 32768) } == input.map { Optional($0) })
        let stats = capture.stats
        #expect(stats.format.sampleFormat == .signed16)
        #expect(stats.format.sampleRate == 16_000)
        #expect(stats.format.channels == 1)
        #expect(stats.frames >= input.count)
        #expect(stats.xruns == 0 && stats.reopens == 0)
    }

    @Test func periodAndBufferAreConfigurableInFramesOrMilliseconds() throws {
        let small = try CaptureDevice(CaptureConfiguration(device: ALSATestDevices.capture(replaying: URL(fileURLWithPath: "/dev/zero")),
                                                           period: .frames(160), buffer: .frames(640)))
        #expect(small.stats.format.periodFrames == 160)
        #expect(small.stats.format.bufferFrames == 640)
        let timed = try CaptureDevice(CaptureConfiguration(device: ALSATestDevices.capture(replaying: URL(fileURLWithPath: "/dev/zero")),
                                                           period: .milliseconds(10), buffer: .milliseconds(100)))
        #expect(timed.stats.format.periodFrames == 160)
        #expect(timed.stats.format.bufferFrames == 1_600)
    }

    @Test func readingPastTheEndOfTheInputGivesSilence() throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = (0..<1_000).map { Int16($0 % 200 + 1) }
        let file = folder.appendingPathComponent("short.raw")
        try ALSATestDevices.rawData(input).write(to: file)

        let capture = try CaptureDevice(CaptureConfiguration(device: ALSATestDevices.capture(replaying: file)))
        var captured = [Float](repeating: .nan, count: 16_000)
        #expect(capture.read(into: &captured) == captured.count)

        #expect(captured[..<1_000].map { Int16($0 * 32768) } == input)
        #expect(captured[1_000...].allSatisfy { $0 == 0 })
    }

    @Test func anUnknownDeviceNameGivesAClearTypedError() throws {
        let name = ALSATestDevices.missingName
        _ = ALSATestDevices.configPath
        let error = #expect(throws: AudioDeviceError.self) {
            try CaptureDevice(CaptureConfiguration(device: name))
        }
        guard case let .cannotOpen(device, direction, code, _)? = error else {
            Issue.record("expected cannotOpen, got \(String(describing: error))")
            return
        }
        #expect(device == name && direction == .capture && code == -ENOENT)
        #expect(error?.description
            == "capture device '\(name)' could not be opened: No such file or directory — list devices with `hotword devices`")
    }

    @Test func invalidPeriodAndBufferAreRejectedBeforeUse() throws {
        let device = ALSATestDevices.capture(replaying: URL(fileURLWithPath: "/dev/zero"))
        for (period, buffer) in [(AudioFrameCount.frames(0), AudioFrameCount.frames(1_024)), (.frames(512), .frames(600))] {
            let error = #expect(throws: AudioDeviceError.self) {
                try CaptureDevice(CaptureConfiguration(device: device, period: period, buffer: buffer))
            }
            guard case .invalidRequest? = error else {
                Issue.record("expected invalidRequest for period \(period), buffer \(buffer); got \(String(describing: error))")
                continue
            }
        }
    }

    /// The stereo-only device refuses mono, so the device is opened with two channels; asking
    /// for 48 kHz (which it accepts) exercises the resampler. Left and right differ, so the
    /// level shows they were averaged.
    @Test func a48kHzStereoSourceBecomes16kHzMonoKeepingTheSineFrequency() throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let left = Signals.sine(frequency: 440, sampleRate: 48_000, seconds: 1.5, amplitude: 0.6)
        let right = Signals.sine(frequency: 440, sampleRate: 48_000, seconds: 1.5, amplitude: 0.2)
        let interleaved = zip(left, right).flatMap { [Int16(($0 * 32767).rounded()), Int16(($1 * 32767).rounded())] }
        let file = folder.appendingPathComponent("stereo48.raw")
        try ALSATestDevices.rawData(interleaved).write(to: file)

        let capture = try CaptureDevice(CaptureConfiguration(device: ALSATestDevices.stereoCapture(replaying: file),
                                                             sampleRate: 48_000))
        var captured = [Float](repeating: .nan, count: 16_000)
        #expect(capture.read(into: &captured) == captured.count)

        let format = capture.stats.format
        #expect(format.channels == 2 && format.sampleRate == 48_000)
        let middle = Signals.middle(captured)
        #expect(abs(Signals.frequency(of: middle, sampleRate: 16_000) - 440) < 0.5)
        #expect(abs(Signals.sineAmplitude(middle) - 0.4) < 0.01)
    }

    @Test(arguments: [AudioSampleFormat.signed32, .float32])
    func thirtyTwoBitDevicesAreConvertedExactly(format: AudioSampleFormat) throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        var random = SeededGenerator(seed: 2)
        let expected = (0..<4_000).map { _ in Float(Int16.random(in: .min ... .max, using: &random)) / 32768 }
        var data = Data()
        for value in expected {
            let word = format == .signed32 ? UInt32(bitPattern: Int32(value * 2_147_483_648)) : value.bitPattern
            withUnsafeBytes(of: word.littleEndian) { data.append(contentsOf: $0) }
        }
        let file = folder.appendingPathComponent("input32.raw")
        try data.write(to: file)

        let capture = try CaptureDevice(CaptureConfiguration(device: ALSATestDevices.capture(replaying: file), sampleFormat: format))
        var captured = [Float](repeating: .nan, count: expected.count)
        #expect(capture.read(into: &captured) == captured.count)

        #expect(capture.stats.format.sampleFormat == format)
        #expect(captured == expected)
    }

    /// Copying the captured audio to /dev/full makes reads fail with EIO, as an unplugged
    /// device does; while the input file is away, reopening fails too. Once both are back the
    /// device is reopened and the input plays again from its start.
    @Test(.timeLimit(.minutes(1)))
    func aFailedDeviceIsReopenedWithBackoffAndDeliversAgain() throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        var random = SeededGenerator(seed: 3)
        let input = (0..<16_000).map { _ in Int16.random(in: .min ... .max, using: &random) }
        let file = folder.appendingPathComponent("input.raw")
        let away = folder.appendingPathComponent("away.raw")
        try ALSATestDevices.rawData(input).write(to: file)
        let copy = folder.appendingPathComponent("copy")
        try FileManager.default.createSymbolicLink(atPath: copy.path, withDestinationPath: "/dev/full")

        let capture = try CaptureDevice(CaptureConfiguration(
            device: ALSATestDevices.capture(replaying: file, copyingTo: copy), period: .frames(256), buffer: .frames(1_024),
            reopen: AudioReopenPolicy(initialDelay: .milliseconds(10), maximumDelay: .milliseconds(40))))
        try FileManager.default.moveItem(at: file, to: away)

        let repair = Thread {
            Thread.sleep(forTimeInterval: 0.3)
            try? FileManager.default.moveItem(at: away, to: file)
            try? FileManager.default.removeItem(at: copy)
            try? FileManager.default.createSymbolicLink(atPath: copy.path, withDestinationPath: "/dev/null")
        }
        let started = Date()
        repair.start()
        var captured = [Float](repeating: .nan, count: 48_000)
        #expect(capture.read(into: &captured) == captured.count)

        #expect(Date().timeIntervalSince(started) >= 0.3)
        #expect(capture.stats.reopens == 1)  // failed attempts (file away) do not count
        let restarted = (1...(captured.count - input.count)).first { offset in
            (0..<64).allSatisfy { Int16(captured[offset + $0] * 32768) == input[$0] }
        }
        let offset = try #require(restarted)
        #expect(captured[offset..<(offset + input.count)].map { Int16($0 * 32768) } == input)
    }

    /// Every reopen of this device works, and every one fails again within a few periods. The
    /// delay must keep doubling (10, 20, 40, 80, 80… ms) instead of restarting after each short
    /// success: in 0.8 s that allows about 11 reopens, where restarting would allow 80.
    @Test(.timeLimit(.minutes(1)))
    func aDeviceThatFailsAfterEveryReopenKeepsBackingOff() throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("input.raw")
        try ALSATestDevices.rawData([Int16](repeating: 7, count: 16_000)).write(to: file)
        let capture = try CaptureDevice(CaptureConfiguration(
            device: ALSATestDevices.capture(replaying: file, copyingTo: URL(fileURLWithPath: "/dev/full")),
            period: .frames(256), buffer: .frames(1_024),
            reopen: AudioReopenPolicy(initialDelay: .milliseconds(10), maximumDelay: .milliseconds(80))))

        let closer = Thread {
            Thread.sleep(forTimeInterval: 0.8)
            capture.close()
        }
        closer.start()
        var captured = [Float](repeating: .nan, count: 16_000 * 60)
        _ = capture.read(into: &captured)

        let reopens = capture.stats.reopens
        #expect(reopens >= 3 && reopens <= 14, "\(reopens) reopens in 0.8 s")
    }

    /// A device that keeps failing blocks `read` in its backoff wait; `close()` from another
    /// thread must end that wait at once and stop the attempts.
    @Test(.timeLimit(.minutes(1)))
    func closeFromAnotherThreadEndsABlockedReadAndTheReopenAttempts() throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("input.raw")
        try ALSATestDevices.rawData([Int16](repeating: 5, count: 100)).write(to: file)
        let capture = try CaptureDevice(CaptureConfiguration(
            device: ALSATestDevices.capture(replaying: file, copyingTo: URL(fileURLWithPath: "/dev/full")),
            period: .frames(256), buffer: .frames(1_024),
            reopen: AudioReopenPolicy(initialDelay: .seconds(30), maximumDelay: .seconds(60))))

        let closer = Thread {
            Thread.sleep(forTimeInterval: 0.2)
            capture.close()
        }
        let started = Date()
        closer.start()
        var captured = [Float](repeating: .nan, count: 16_000)
        let count = capture.read(into: &captured)
        let elapsed = Date().timeIntervalSince(started)

        #expect(count < captured.count)
        #expect(elapsed >= 0.2 && elapsed < 5)
        #expect(capture.read(into: &captured) == 0)
        #expect(capture.stats.reopens == 0)
    }

    /// A daemon's microphone may appear after it starts (a USB device, a sound server still
    /// starting): with `waitIfAbsent` the device starts without it and `read` waits for it.
    @Test(.timeLimit(.minutes(1)))
    func anAbsentKnownDeviceIsWaitedForAndDeliversOnceItAppears() throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = (0..<4_000).map { Int16($0 % 300 - 150) }
        let file = folder.appendingPathComponent("input.raw")
        let configuration = CaptureConfiguration(
            device: ALSATestDevices.capture(replaying: file), period: .frames(256), buffer: .frames(1_024),
            reopen: AudioReopenPolicy(initialDelay: .milliseconds(20), maximumDelay: .milliseconds(80)))
        #expect(throws: AudioDeviceError.self) { try CaptureDevice(configuration) }

        let capture = try CaptureDevice(configuration, waitIfAbsent: true)
        let appear = Thread {
            Thread.sleep(forTimeInterval: 0.3)
            // Atomically: a device opened between creating and filling the file would hear silence.
            try? ALSATestDevices.rawData(input).write(to: file, options: .atomic)
        }
        let started = Date()
        appear.start()
        var captured = [Float](repeating: .nan, count: input.count)
        #expect(capture.read(into: &captured) == captured.count)

        #expect(Date().timeIntervalSince(started) >= 0.3)
        #expect(captured.map { Int16($0 * 32768) } == input)
        #expect(capture.stats.reopens == 0)  // the first open is no reopen
        #expect(capture.stats.format.periodFrames == 256)
    }

    @Test func anUnknownNameIsAnErrorEvenWhenWaitingForAbsentDevices() {
        _ = ALSATestDevices.configPath
        let error = #expect(throws: AudioDeviceError.self) {
            try CaptureDevice(CaptureConfiguration(device: ALSATestDevices.missingName), waitIfAbsent: true)
        }
        guard case .cannotOpen? = error else {
            Issue.record("expected cannotOpen, got \(String(describing: error))")
            return
        }
    }

    /// While waiting for an absent device, `close()` ends the wait at once.
    @Test(.timeLimit(.minutes(1)))
    func closeEndsTheWaitForAnAbsentDevice() throws {
        let configuration = CaptureConfiguration(
            device: ALSATestDevices.capture(replaying: URL(fileURLWithPath: "/nonexistent/input.raw")),
            reopen: AudioReopenPolicy(initialDelay: .seconds(30), maximumDelay: .seconds(60)))
        let capture = try CaptureDevice(configuration, waitIfAbsent: true)
        let closer = Thread {
            Thread.sleep(forTimeInterval: 0.2)
            capture.close()
        }
        let started = Date()
        closer.start()
        var captured = [Float](repeating: .nan, count: 1_000)

        #expect(capture.read(into: &captured) == 0)
        #expect(Date().timeIntervalSince(started) < 5)
    }
}
