import Foundation
@testable import HotwordAssistant
import HotwordAudio
import HotwordModels
import HotwordTestSupport
import Testing

/// The listener thread against a real ALSA microphone (the file plugin reading a paced FIFO).
@Suite("Listener")
struct ListenerTests {
    /// Events as the listener emits them, from its thread.
    private final class EventLog: @unchecked Sendable {  // @unchecked: guarded by `lock`
        private let lock = NSLock()
        private var events: [ListenerEvent] = []

        /// Appends `event`; returns how many events there are now.
        func append(_ event: ListenerEvent) -> Int { lock.withLock { events.append(event); return events.count } }

        var droppedSamples: [UInt64] {
            lock.withLock { events.compactMap { if case .audioDropped(let samples) = $0 { samples } else { nil } } }
        }
    }

    @Test func everyLostSampleIsReportedEvenWithoutALaterGap() async throws {
        _ = ALSATestDevices.configPath
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let microphone = try PacedMicrophone(folder: folder, speed: 4)
        defer { microphone.close() }
        microphone.say(ToneModels.signal(seconds: 3, tones: [(2, 1_000)]))
        let model = folder.appendingPathComponent("beep.hwks")
        try ModelStore.save(ToneModels.model(keyword: "beep", frequency: 1_000), to: model.path)
        var configuration = AssistantConfiguration(clientVersion: "test")
        configuration.wake.models = [model.path]
        let capture = try CaptureDevice(CaptureConfiguration(device: microphone.deviceName))
        // Half a second: a listener that stalls for one second (four seconds of audio) is lapped.
        let ring = SampleRing(minimumCapacity: 8_000)
        let events = EventLog()
        let listener = Listener(
            capture: capture, ring: ring, ownOutput: OwnOutputLog(capturePosition: { ring.totalWritten }),
            settings: try ListenerSettings(configuration: configuration), watchdog: nil, lossReportInterval: .seconds(2)) { event in
            // The wake word and the first report of lost audio each stall the listener, so it
            // is lapped twice — the second time within the report interval, and never again.
            if events.append(event) <= 2 { Thread.sleep(forTimeInterval: 1) }
        }
        listener.start()
        let deadline = ContinuousClock.now + .seconds(8)
        while events.droppedSamples.count < 2, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        listener.stop()

        #expect(events.droppedSamples.count == 2, "reports: \(events.droppedSamples)")
        #expect(ring.totalDropped > 16_000)
        #expect(events.droppedSamples.reduce(0, +) == ring.totalDropped)
    }
}
