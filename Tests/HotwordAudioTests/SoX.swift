import Foundation

/// SoX, an audio tool independent of our code, used to make test files in many formats and to
/// check what our writer produced (installed by scripts/deps.sh).
enum SoX {
    struct Failure: Error, CustomStringConvertible {
        let arguments: [String]
        let status: Int32
        let output: String
        var description: String { "sox \(arguments.joined(separator: " ")) exited \(status): \(output)" }
    }

    /// Encodes interleaved float samples into `url`; the extension picks the container and
    /// `options` the encoding (e.g. `["-b", "24"]`). No dither, so the expected values are exact.
    static func encode(_ samples: [Float], sampleRate: Int, channels: Int, to url: URL, options: [String] = []) throws {
        let raw = url.appendingPathExtension("f32")
        defer { try? FileManager.default.removeItem(at: raw) }
        try samples.withUnsafeBufferPointer { Data(buffer: $0) }.write(to: raw)
        try run("sox", rawFormat(sampleRate: sampleRate, channels: channels) + [raw.path, "-D"] + options + [url.path])
    }

    /// Decodes any file SoX reads into interleaved floats at its own rate.
    static func decode(_ url: URL) throws -> [Float] {
        let bytes = try run("sox", ["-D", url.path, "-t", "raw", "-e", "floating-point", "-b", "32", "-L", "-"])
        return bytes.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    /// One field from `soxi` (e.g. "-r" rate, "-c" channels, "-s" samples, "-e" encoding, "-b" bits).
    static func info(_ option: String, of url: URL) throws -> String {
        let bytes = try run("soxi", [option, url.path])
        return String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private static func rawFormat(sampleRate: Int, channels: Int) -> [String] {
        ["-t", "raw", "-e", "floating-point", "-b", "32", "-L", "-r", "\(sampleRate)", "-c", "\(channels)"]
    }

    @discardableResult
    private static func run(_ tool: String, _ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let messages = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(arguments: [tool] + arguments, status: process.terminationStatus,
                          output: String(decoding: messages, as: UTF8.self))
        }
        return data
    }
}
