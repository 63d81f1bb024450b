#if canImport(Glibc)
import Glibc
#endif

/// A self-pipe that another thread signals to interrupt the audio thread's `poll` (close, stop).
/// Signals are sticky until `clear`, so one sent before the audio thread starts waiting is not lost.
final class ALSAWakeup: @unchecked Sendable {  // a pipe may be written and read from any thread
    /// The end to poll for reading.
    let descriptor: Int32
    private let writeEnd: Int32

    init(device: String, direction: AudioDirection) throws(AudioDeviceError) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            let code = errno
            throw .cannotOpen(device: device, direction: direction, code: -code,
                              reason: "cannot create a wakeup pipe: \(String(cString: strerror(code)))")
        }
        descriptor = ends[0]
        writeEnd = ends[1]
        for end in ends {
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)  // a child process must not inherit it
        }
    }

    deinit {
        Glibc.close(descriptor)
        Glibc.close(writeEnd)
    }

    func signal() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)  // a full pipe is already signalled
    }

    func clear() {
        var bytes = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        while read(descriptor, &bytes, MemoryLayout.size(ofValue: bytes)) > 0 {}
    }

    /// Sleeps up to `timeout`; true when woken by `signal` (which stays set until `clear`).
    func wait(_ timeout: Duration) -> Bool {
        var descriptors = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(clamping: timeout.components.seconds * 1000
            + timeout.components.attoseconds / 1_000_000_000_000_000)
        return poll(&descriptors, 1, milliseconds) > 0
    }
}
