import Foundation
import FuzzSupport
import HotwordAudio
import HotwordCore

/// One input: the bytes of an audio file, read the way `hotword detect` reads a file. A typed
/// `AudioFileError` is a pass; decoded samples must be mono 16 kHz in [-1, 1].
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzAudioFile(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = fuzzInput(start, count)
    MemoryFile.replaceContent(with: input)
    guard let audio = try? AudioFileReader.read(MemoryFile.url) else { return 0 }
    guard audio.sampleRate == AudioFormat.sampleRate, audio.samples.allSatisfy({ (-1...1).contains($0) }) else {
        fatalError("decoded audio at \(audio.sampleRate) Hz or outside [-1, 1]")
    }
    return 0
}

/// A file in RAM (tmpfs), unlinked at once and reached by its /proc path, so each input is read
/// through the real open/libsndfile path without touching the disk or leaving a file behind.
/// (Swift's Glibc module hides memfd_create, a GNU extension.)
enum MemoryFile {
    static let descriptor: Int32 = {
        let folder = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
        let path = (folder as NSString).appendingPathComponent("hotword-fuzz-audio-\(getpid())")
        let descriptor = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        precondition(descriptor >= 0, "\(path): \(String(cString: strerror(errno)))")
        unlink(path)
        return descriptor
    }()
    static let url = URL(fileURLWithPath: "/proc/self/fd/\(descriptor)")

    static func replaceContent(with bytes: UnsafeBufferPointer<UInt8>) {
        precondition(ftruncate(descriptor, 0) == 0, "ftruncate: \(String(cString: strerror(errno)))")
        guard let base = bytes.baseAddress else { return }
        precondition(pwrite(descriptor, base, bytes.count, 0) == bytes.count, "pwrite: \(String(cString: strerror(errno)))")
    }
}

runFuzzer(fuzzAudioFile)
