import Foundation
import HotwordAudio

/// Small archives laid out as the real corpora are, made for each test.
public enum TestCorpora {
    /// A short tone as a 16 kHz WAV (different files differ).
    public static func writeClip(_ url: URL, seconds: Double = 0.2, frequency: Double = 440) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let count = Int(seconds * 16_000)
        let samples = (0..<count).map { Float(0.3 * sin(2 * Double.pi * frequency * Double($0) / 16_000)) }
        try AudioFileWriter.writeWAV(samples, to: url, sampleRate: 16_000)
    }

    /// A Speech Commands archive: `yes/` with the first takes of `yesSpeakers` speakers and a
    /// second take of one, `no/` with one, `_background_noise_/` with two noises (white noise of
    /// `noiseSeconds`, which does not compress, and a tone), a text file named like a clip, and
    /// a README. Returns the archive's bytes.
    public static func speechCommands(in folder: URL, yesSpeakers: Int = 3, noiseSeconds: Double = 1) throws -> Data {
        let tree = folder.appendingPathComponent("speech-commands-tree")
        for speaker in 0..<yesSpeakers {
            try writeClip(tree.appendingPathComponent("yes/\(String(format: "%08x", speaker))_nohash_0.wav"), frequency: 300 + Double(speaker))
        }
        try writeClip(tree.appendingPathComponent("yes/00000000_nohash_1.wav"))
        try writeClip(tree.appendingPathComponent("no/abcdef12_nohash_0.wav"))
        var random = SeededGenerator(seed: 7)
        try FileManager.default.createDirectory(at: tree.appendingPathComponent("_background_noise_"), withIntermediateDirectories: true)
        try AudioFileWriter.writeWAV(random.floats(Int(noiseSeconds * 16_000), scale: 0.3),
                                     to: tree.appendingPathComponent("_background_noise_/white_noise.wav"), sampleRate: 16_000)
        try writeClip(tree.appendingPathComponent("_background_noise_/running_tap.wav"), seconds: 1)
        try Data("not audio".utf8).write(to: tree.appendingPathComponent("no/deadbeef_nohash_0.wav"))
        try Data("Speech Commands".utf8).write(to: tree.appendingPathComponent("README.md"))
        let archive = folder.appendingPathComponent("speech_commands.tar.gz")
        try TestArchives.tarGz(of: tree, to: archive)
        return try Data(contentsOf: archive)
    }

    /// An OpenSLR 28 zip: two small rooms and a medium one with two responses each, a large
    /// room, a real (multichannel) response, and two point-source noises.
    public static func rirsNoises(in folder: URL) throws -> Data {
        let tree = folder.appendingPathComponent("rirs-tree")
        let base = tree.appendingPathComponent("RIRS_NOISES")
        for (size, room) in [("smallroom", "Room001"), ("smallroom", "Room002"), ("mediumroom", "Room001"), ("largeroom", "Room001")] {
            for index in 1...2 {
                try writeClip(base.appendingPathComponent("simulated_rirs/\(size)/\(room)/\(room)-0000\(index).wav"), seconds: 0.1)
            }
        }
        try writeClip(base.appendingPathComponent("real_rirs_isotropic_noises/RVB2014_type1_rir_largeroom1_far_angla.wav"))
        try writeClip(base.appendingPathComponent("pointsource_noises/noise-free-sound-0001.wav"))
        try writeClip(base.appendingPathComponent("pointsource_noises/noise-free-sound-0002.wav"))
        let archive = folder.appendingPathComponent("rirs_noises.zip")
        try TestArchives.zip(of: tree, to: archive)
        return try Data(contentsOf: archive)
    }

}
