import Foundation
import HotwordAudio
import HotwordTestSupport
import Testing

@Suite struct AudioDevicesTests {
    @Test func listsTheTestDevicesWithDescriptionsAndDirections() throws {
        _ = ALSATestDevices.configPath
        let all = try AudioDevices.list()
        let capture = try #require(all.first { $0.name == ALSATestDevices.captureName })
        #expect(capture.description == "hotword test microphone replaying a raw file")
        #expect(capture.directions == [.capture])
        let playback = try #require(all.first { $0.name == ALSATestDevices.playbackName })
        #expect(playback.directions == [.playback])
        // No IOID: both directions, as ALSA's null device.
        #expect(all.first { $0.name == "null" }?.directions == [.capture, .playback])
        // Helper PCMs without a hint stay hidden.
        #expect(!all.contains { $0.name == "hotword_test_stereo_null" })

        let microphones = try AudioDevices.list(.capture).map(\.name)
        #expect(microphones.contains(ALSATestDevices.stereoCaptureName))
        #expect(!microphones.contains(ALSATestDevices.playbackName))
        let speakers = try AudioDevices.list(.playback).map(\.name)
        #expect(speakers.contains(ALSATestDevices.stereoPlaybackName))
        #expect(!speakers.contains(ALSATestDevices.captureName))
    }

    /// Known: defined in ALSA's configuration with fitting arguments, whether or not the device
    /// can be opened now (no card 0 exists here, the capture device's file is missing).
    @Test func aNameIsKnownWhenALSAsConfigurationDefinesIt() {
        _ = ALSATestDevices.configPath
        #expect(AudioDevices.isKnown("null"))
        #expect(AudioDevices.isKnown("plughw:CARD=NoSuchCard,DEV=0"))
        #expect(AudioDevices.isKnown(ALSATestDevices.capture(replaying: URL(fileURLWithPath: "/nonexistent/input.raw"))))
        #expect(!AudioDevices.isKnown(ALSATestDevices.missingName))
        #expect(!AudioDevices.isKnown("hw:NOSUCHARGUMENT=1"))
    }
}
