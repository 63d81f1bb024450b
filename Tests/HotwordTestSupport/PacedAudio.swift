import Foundation
import Synchronization

/// A microphone that speaks in (a multiple of) real time, for tests of the live assistant.
///
/// ALSA's file plugin replays a file as fast as it is read; a FIFO in its place lets the test
/// decide when audio arrives: this writes queued audio (and silence when nothing is queued)
/// into the FIFO one capture period at a time, `speed` periods per period of real time.
/// Chunks are exactly one period (1024 bytes, written atomically), so the device, which reads
/// a period at a time, never sees a partial one. The FIFO is held open for reading too, so
/// nothing blocks: not opening it, not a device that stops reading (writing waits instead).
public final class PacedMicrophone: Sendable {
    /// Frames per chunk: the capture period the assistant's tests configure (32 ms at 16 kHz).
    public static let chunkFrames = 512
    public static let sampleRate = 16_000

    public var fifo: URL { pipe.fifo }
    private let pipe: PacedFIFO
    private let speed: Double
    /// Queued samples, from `next` on.
    private let queue = Mutex<(samples: [Int16], next: Int)>(([], 0))

    /// Creates the FIFO `microphone.fifo` in `folder` and starts writing silence into it.
    public init(folder: URL, speed: Double = 4) throws {
        pipe = try PacedFIFO(folder.appendingPathComponent("microphone.fifo"))
        self.speed = speed
        pipe.start(name: "paced-microphone") { [self] in writeChunks() }
    }

    /// The ALSA test device that captures from this microphone.
    public var deviceName: String { ALSATestDevices.capture(replaying: fifo) }

    /// Queues 16 kHz audio to be "said" after what is already queued.
    public func say(_ samples: [Float]) {
        let converted = samples.map { Int16((max(-1, min(1, $0)) * 32767).rounded()) }
        queue.withLock { $0.samples += converted }
    }

    /// Seconds of queued audio not yet written.
    public var pendingSeconds: Double {
        queue.withLock { Double($0.samples.count - $0.next) / Double(Self.sampleRate) }
    }

    /// Waits until everything queued has gone into the FIFO (plus `margin` of silence after it).
    public func waitUntilSaid(margin: Duration = .zero, timeout: Duration = .seconds(60)) async throws {
        let deadline = ContinuousClock.now + timeout
        while pendingSeconds > 0 {
            guard ContinuousClock.now < deadline else { throw PacedAudioError(path: fifo.path, call: "waitUntilSaid (timed out)") }
            try await Task.sleep(for: .milliseconds(20))
        }
        try await Task.sleep(for: margin / speed)
    }

    /// Stops writing and closes the FIFO.
    public func close() {
        pipe.close()
    }

    private func writeChunks() {
        let tick = Double(Self.chunkFrames) / Double(Self.sampleRate) / speed
        var chunk = [Int16](repeating: 0, count: Self.chunkFrames)
        var pending = false
        while !pipe.isStopping {
            if !pending {
                queue.withLock { queue in
                    let count = min(Self.chunkFrames, queue.samples.count - queue.next)
                    for index in 0..<Self.chunkFrames { chunk[index] = index < count ? queue.samples[queue.next + index] : 0 }
                    queue.next += count
                    if queue.next == queue.samples.count { queue = ([], 0) }
                }
            }
            let written = chunk.withUnsafeBytes { write(pipe.descriptor, $0.baseAddress, $0.count) }
            pending = written < 0  // full (nobody reading yet): the same chunk again next time
            Thread.sleep(forTimeInterval: tick)
        }
    }
}

/// A loudspeaker that plays in (a multiple of) real time, for tests of barge-in: the ALSA test
/// playback device writes into a FIFO that this reads at `speed` × real time, so playing takes
/// time, as on a real device. Everything read is kept.
public final class PacedLoudspeaker: Sendable {
    public var fifo: URL { pipe.fifo }
    public let sampleRate: Int
    private let pipe: PacedFIFO
    private let speed: Double
    private let bytes = Mutex<[UInt8]>([])

    /// Creates the FIFO `loudspeaker.fifo` in `folder`; the device must be opened at `sampleRate` 16-bit mono.
    public init(folder: URL, sampleRate: Int, speed: Double = 4) throws {
        pipe = try PacedFIFO(folder.appendingPathComponent("loudspeaker.fifo"))
        self.sampleRate = sampleRate
        self.speed = speed
        pipe.start(name: "paced-loudspeaker") { [self] in readChunks() }
    }

    /// The ALSA test device that plays into this loudspeaker.
    public var deviceName: String { ALSATestDevices.playback(into: fifo) }

    /// What has been played so far, as 16-bit samples.
    public var samples: [Int16] {
        bytes.withLock { bytes in
            stride(from: 0, to: bytes.count - 1, by: 2).map { Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8) }
        }
    }

    public var playedSeconds: Double {
        bytes.withLock { Double($0.count / 2) / Double(sampleRate) }
    }

    /// Stops reading and closes the FIFO.
    public func close() {
        pipe.close()
    }

    private func readChunks() {
        let tickSeconds = 0.02
        let chunkBytes = Int(Double(sampleRate) * tickSeconds * speed) * 2
        var chunk = [UInt8](repeating: 0, count: chunkBytes)
        while !pipe.isStopping {
            let count = chunk.withUnsafeMutableBytes { read(pipe.descriptor, $0.baseAddress, chunkBytes) }
            if count > 0 { bytes.withLock { $0 += chunk[..<count] } }
            Thread.sleep(forTimeInterval: tickSeconds)
        }
    }
}

/// A FIFO held open for reading and writing (so nothing blocks: not opening it, not a device
/// that stops reading or writing) and the thread that paces audio through it until `close()`.
private final class PacedFIFO: Sendable {
    let fifo: URL
    let descriptor: Int32
    private let stopping = Atomic(false)
    private let finished = DispatchSemaphore(value: 0)

    init(_ fifo: URL) throws {
        self.fifo = fifo
        guard mkfifo(fifo.path, 0o600) == 0 else { throw PacedAudioError(path: fifo.path, call: "mkfifo") }
        descriptor = open(fifo.path, O_RDWR | O_NONBLOCK)
        guard descriptor >= 0 else { throw PacedAudioError(path: fifo.path, call: "open") }
        shrinkPipe(descriptor)
    }

    /// Runs `work` on its own thread; `work` returns once `isStopping`.
    func start(name: String, _ work: @escaping @Sendable () -> Void) {
        let thread = Thread { [finished] in
            work()
            finished.signal()
        }
        thread.name = name
        thread.start()
    }

    var isStopping: Bool { stopping.load(ordering: .acquiring) }

    /// Stops the thread, closes the FIFO and removes it (once; later calls do nothing).
    func close() {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        finished.wait()
        Foundation.close(descriptor)
        unlink(fifo.path)
    }
}

/// Linux pipes hold 64 KiB, two seconds of 16 kHz audio: too much slack for timing tests.
/// One page (128 ms of 16 kHz audio) keeps what is in flight short.
private func shrinkPipe(_ descriptor: Int32) {
    let setPipeSize: Int32 = 1031  // F_SETPIPE_SZ
    _ = fcntl(descriptor, setPipeSize, 4096)
}

public struct PacedAudioError: Error, CustomStringConvertible {
    public let path: String
    public let call: String
    public var description: String { "\(call) failed for \(path): \(String(cString: strerror(errno)))" }
}
