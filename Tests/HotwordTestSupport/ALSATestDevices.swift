import Foundation

/// Real ALSA devices for tests on machines without a sound card: ALSA's `file` plugin over the
/// `null` device turns a raw file into a microphone (`infile`) and a loudspeaker into a raw file.
/// The null device does not pace in real time, so these run faster than real time, and a
/// microphone whose file has ended delivers silence.
///
/// alsa-lib caches its configuration per process, so instead of one configuration per test
/// there is one for the whole process, written and put into `ALSA_CONFIG_PATH` before the first
/// ALSA call, defining devices that take their files as arguments
/// (`hotword_test_capture:INFILE="/tmp/x.raw"`). Any number of tests, in parallel, each name
/// their own files. Child processes (the `hotword` binary) inherit the variable.
public enum ALSATestDevices {
    /// A microphone that replays a raw file; any rate, format and channel count.
    public static let captureName = "hotword_test_capture"
    /// A microphone that refuses anything but exactly two channels (any rate and format).
    /// The `multi` plugin fixes the channel count. Nothing in alsa-lib without hardware fixes a
    /// *rate* (`null` accepts all, `share`/`dsnoop` need real hardware), so tests reach the
    /// rate-conversion path by asking for another rate explicitly.
    public static let stereoCaptureName = "hotword_test_stereo_capture"
    /// A loudspeaker that writes into a raw file; any rate, format and channel count.
    public static let playbackName = "hotword_test_playback"
    /// A loudspeaker that refuses anything but exactly two channels.
    public static let stereoPlaybackName = "hotword_test_stereo_playback"
    /// A name ALSA does not know.
    public static let missingName = "hotword_test_missing"

    /// The value given to `ALSA_CONFIG_PATH`: ALSA's own configuration first, then ours.
    public static var configPath: String { installed }

    /// A microphone replaying `input` (raw, interleaved, in the format and channel count the
    /// device is opened with). Captured data is also copied to `copy` — a failing target such as
    /// /dev/full makes every read fail with EIO, as an unplugged device would.
    public static func capture(replaying input: URL, copyingTo copy: URL? = nil) -> String {
        device(captureName, ["INFILE": input.path, "OUTFILE": copy?.path])
    }

    /// A two-channel-only microphone replaying interleaved stereo `input`.
    public static func stereoCapture(replaying input: URL) -> String {
        device(stereoCaptureName, ["INFILE": input.path])
    }

    /// A loudspeaker whose output lands in `output` (raw, interleaved).
    public static func playback(into output: URL) -> String {
        device(playbackName, ["OUTFILE": output.path])
    }

    /// A two-channel-only loudspeaker whose interleaved stereo output lands in `output`.
    public static func stereoPlayback(into output: URL) -> String {
        device(stereoPlaybackName, ["OUTFILE": output.path])
    }

    /// Raw little-endian 16-bit samples, as the devices read and write them.
    public static func rawData(_ samples: [Int16]) -> Data {
        var data = Data(capacity: samples.count * 2)
        for sample in samples { withUnsafeBytes(of: sample.littleEndian) { data.append(contentsOf: $0) } }
        return data
    }

    /// The 16-bit samples of raw little-endian `data`.
    public static func samples(ofRaw data: Data) -> [Int16] {
        stride(from: 0, to: data.count - 1, by: 2).map { offset in
            Int16(littleEndian: Int16(bitPattern: UInt16(data[data.startIndex + offset])
                | UInt16(data[data.startIndex + offset + 1]) << 8))
        }
    }

    private static func device(_ name: String, _ arguments: [String: String?]) -> String {
        _ = installed
        let list = arguments.sorted { $0.key < $1.key }.compactMap { key, value in
            value.map { "\(key)=\"\($0)\"" }
        }
        return list.isEmpty ? name : "\(name):" + list.joined(separator: ",")
    }

    /// Writes the configuration and sets `ALSA_CONFIG_PATH`, once per process.
    private static let installed: String = {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("hotword-test-alsa-devices.conf")
        do {
            // Atomic: test processes running side by side may write it at the same moment.
            try Data(configuration.utf8).write(to: file, options: .atomic)
        } catch {
            fatalError("cannot write the ALSA test configuration \(file.path): \(error)")
        }
        let path = "/usr/share/alsa/alsa.conf:\(file.path)"
        setenv("ALSA_CONFIG_PATH", path, 1)
        return path
    }()

    /// `|IOIDInput` in a description is how a device without a sound card gets a direction:
    /// snd_device_name_hint copies the description into its "NAME…|DESC…" string verbatim.
    private static let configuration = """
        # Written by HotwordTestSupport (ALSATestDevices): test devices that need no sound card.
        pcm.\(captureName) {
            @args [ INFILE OUTFILE ]
            @args.INFILE { type string default "/dev/zero" }
            @args.OUTFILE { type string default "/dev/null" }
            type file
            slave.pcm "null"
            infile $INFILE
            file $OUTFILE
            format "raw"
            hint.description "hotword test microphone replaying a raw file|IOIDInput"
        }
        pcm.\(stereoCaptureName) {
            @args [ INFILE ]
            @args.INFILE { type string default "/dev/zero" }
            type file
            slave.pcm "hotword_test_stereo_null"
            infile $INFILE
            file "/dev/null"
            format "raw"
            hint.description "hotword test stereo-only microphone replaying a raw file|IOIDInput"
        }
        pcm.\(playbackName) {
            @args [ OUTFILE ]
            @args.OUTFILE { type string default "/dev/null" }
            type file
            slave.pcm "null"
            file $OUTFILE
            format "raw"
            hint.description "hotword test loudspeaker writing a raw file|IOIDOutput"
        }
        pcm.\(stereoPlaybackName) {
            @args [ OUTFILE ]
            @args.OUTFILE { type string default "/dev/null" }
            type file
            slave.pcm "hotword_test_stereo_null"
            file $OUTFILE
            format "raw"
            hint.description "hotword test stereo-only loudspeaker writing a raw file|IOIDOutput"
        }
        pcm.hotword_test_stereo_null {
            type multi
            slaves.a { pcm "null" channels 2 }
            bindings.0 { slave a channel 0 }
            bindings.1 { slave a channel 1 }
            hint.show off
        }

        """
}
