import Atomics
import Foundation

/// Says the soak stream into a FIFO that the daemon's ALSA file-plugin microphone reads, at a
/// multiple of real time: `fastSpeed` while the assistant listens, `slowSpeed` while it is busy
/// with a question (so the next wake word does not arrive while it still answers the last).
/// After the stream it writes silence until stopped, as a microphone would.
///
/// Not `PacedMicrophone` (the tests' paced microphone): that one queues all audio up front and
/// paces by sleeping per chunk, while a day of audio must be made as it is needed and paced
/// against the clock at up to hundreds of times real time. Every write is 4096 bytes — whole
/// periods of the daemon's capture device (512 frames), at most PIPE_BUF so it is atomic — so
/// each of the device's reads gets a full period and stream positions stay exact.
final class PacedFIFOWriter: @unchecked Sendable {
    // @unchecked: `stream` is only used by the writer thread; the rest is atomic or immutable.
    static let chunkSamples = 2048

    let fifo: URL
    private let descriptor: Int32
    private var stream: SoakStream
    private let fastSpeed: Double
    private let slowSpeed: Double
    private let isBusy: @Sendable () -> Bool
    private let written = ManagedAtomic<Int>(0)
    private let slowWritten = ManagedAtomic<Int>(0)
    private let ended = ManagedAtomic(false)
    private let stopping = ManagedAtomic(false)
    private let finished = DispatchSemaphore(value: 0)

    init(fifo: URL, stream: SoakStream, fastSpeed: Double, slowSpeed: Double, isBusy: @escaping @Sendable () -> Bool) throws {
        guard mkfifo(fifo.path, 0o600) == 0 else { throw SoakError.system("mkfifo \(fifo.path)", errno) }
        // Read-write, so opening does not wait for the daemon and writing never fails for want of a reader.
        descriptor = open(fifo.path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw SoakError.system("open \(fifo.path)", errno) }
        self.fifo = fifo
        self.stream = stream
        self.fastSpeed = fastSpeed
        self.slowSpeed = slowSpeed
        self.isBusy = isBusy
    }

    func start() {
        let thread = Thread { [self] in
            writeChunks()
            finished.signal()
        }
        thread.name = "soak-microphone"
        thread.start()
    }

    /// Samples written so far (stream and silence after it).
    var samplesWritten: Int { written.load(ordering: .relaxed) }
    /// Samples written at the slow speed.
    var samplesWrittenSlowly: Int { slowWritten.load(ordering: .relaxed) }
    /// Whether the whole stream has been written (silence follows).
    var streamEnded: Bool { ended.load(ordering: .relaxed) }

    /// Stops writing and returns the stream (with its ground truth).
    func stop() -> SoakStream {
        if !stopping.exchange(true, ordering: .sequentiallyConsistent) { finished.wait() }
        close(descriptor)
        unlink(fifo.path)
        return stream
    }

    private func writeChunks() {
        let rate = Double(SoakMaterial.sampleRate)
        var chunk = [Int16](repeating: 0, count: Self.chunkSamples)
        var credit = 0.0
        var last = ContinuousClock.now
        while !stopping.load(ordering: .relaxed) {
            let now = ContinuousClock.now
            let elapsed = now - last
            last = now
            let slow = isBusy()
            let speed = slow ? slowSpeed : fastSpeed
            // At most 20 ms of catching up at once: a stalled writer must not flood the daemon.
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
            credit = min(credit + seconds * speed * rate, max(Double(Self.chunkSamples), speed * rate * 0.02))
            while credit >= Double(Self.chunkSamples), !stopping.load(ordering: .relaxed) {
                if !ended.load(ordering: .relaxed) {
                    let count = chunk.withUnsafeMutableBufferPointer { stream.fill($0) }
                    for n in count..<chunk.count { chunk[n] = 0 }
                    if count < chunk.count { ended.store(true, ordering: .relaxed) }
                }
                guard writeChunk(chunk) else { return }
                credit -= Double(Self.chunkSamples)
                written.wrappingIncrement(by: Self.chunkSamples, ordering: .relaxed)
                if slow { slowWritten.wrappingIncrement(by: Self.chunkSamples, ordering: .relaxed) }
                if ended.load(ordering: .relaxed) { chunk.withUnsafeMutableBufferPointer { $0.update(repeating: 0) } }
            }
            usleep(2000)
        }
    }

    /// Writes one chunk whole, waiting while the FIFO is full; false when stopping.
    private func writeChunk(_ chunk: [Int16]) -> Bool {
        while !stopping.load(ordering: .relaxed) {
            let result = chunk.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if result == chunk.count * 2 { return true }
            precondition(result < 0, "a write of at most PIPE_BUF bytes is all or nothing")
            guard errno == EAGAIN || errno == EINTR else { return false }
            var fds = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
            _ = poll(&fds, 1, 50)
        }
        return false
    }
}
