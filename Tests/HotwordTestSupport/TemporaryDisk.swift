import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Why a fault could not be set up here (no permission, no cgroup freezer): the test is skipped
/// with this reason rather than failed.
public struct FaultSetupError: Error, CustomStringConvertible {
    public let description: String

    public init(_ what: String, errno code: Int32? = nil) {
        description = code.map { "\(what): \(String(cString: strerror($0)))" } ?? what
    }
}

/// A small tmpfs mounted for one test: a real file system that fills up. Needs CAP_SYS_ADMIN
/// (root, as in CI).
public final class TemporaryDisk {
    public let url: URL
    private var mounted = true

    /// Mounts a tmpfs of `bytes` on the folder `url` (created if missing).
    public init(at url: URL, bytes: Int) throws {
        self.url = url
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        guard mount("tmpfs", url.path, "tmpfs", 0, "size=\(bytes),mode=0755") == 0 else {
            throw FaultSetupError("cannot mount a \(bytes)-byte tmpfs on \(url.path) (mount needs root)", errno: errno)
        }
    }

    deinit { unmount() }

    /// Gives the file system a new size; the files on it stay.
    public func resize(bytes: Int) throws {
        guard mount("tmpfs", url.path, "tmpfs", UInt(MS_REMOUNT), "size=\(bytes)") == 0 else {
            throw FaultSetupError("cannot resize the tmpfs on \(url.path)", errno: errno)
        }
    }

    /// Takes all the space left with a file of its own (until ENOSPC) and returns that file.
    public func fill() throws -> URL {
        let filler = url.appendingPathComponent("filler-\(UUID().uuidString)")
        let descriptor = open(filler.path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else { throw FaultSetupError("cannot create \(filler.path)", errno: errno) }
        defer { close(descriptor) }
        let block = [UInt8](repeating: 0x55, count: 4096)
        while block.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) > 0 {}
        return filler
    }

    /// Unmounts (lazily, so a file still open elsewhere cannot keep it); safe more than once.
    public func unmount() {
        guard mounted else { return }
        mounted = false
        umount2(url.path, Int32(MNT_DETACH))
    }
}
