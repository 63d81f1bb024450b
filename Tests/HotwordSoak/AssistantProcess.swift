import Atomics
import Foundation
import HotwordTestSupport

/// One event `hotword run --json` printed.
struct ReceivedEvent: Sendable {
    var fields: [String: SoakJSONValue]

    var name: String { fields["event"]?.string ?? "" }
}

/// A JSON scalar of an event line.
enum SoakJSONValue: Sendable {
    case string(String)
    case number(Double)
    case other

    var string: String? { if case .string(let text) = self { text } else { nil } }
    var number: Double? { if case .number(let value) = self { value } else { nil } }
}

/// The daemon's resident memory at one moment.
struct MemorySample: Sendable {
    var wallSeconds: Double
    var audioSeconds: Double
    var kibibytes: Int
}

/// `hotword run --json` as a child process (with this process's environment: the ALSA test
/// devices, sanitizer options): its events (stdout) as they come, its log (stderr) into a file,
/// its resident memory (`VmRSS` of /proc/PID/status) every second.
final class AssistantProcess: @unchecked Sendable {
    // @unchecked: `received` and `memory` are guarded by `lock`; the rest is atomic or immutable.
    private let process = Process()
    private let lock = NSLock()
    private var received: [ReceivedEvent] = []
    private var memory: [MemorySample] = []
    private let busy: ManagedAtomic<Bool>
    private let started = ContinuousClock.now
    private let done = DispatchGroup()
    private let (exit, exited) = AsyncStream<Int32>.makeStream()

    /// - Parameters:
    ///   - busy: set while the assistant works on a question (from its `state` events).
    ///   - audioPosition: how many samples the microphone has been given (to date memory samples).
    init(executable: URL, arguments: [String], log: URL, eventLog: URL,
         busy: ManagedAtomic<Bool>, audioPosition: @escaping @Sendable () -> Int) throws {
        self.busy = busy
        process.executableURL = executable
        process.arguments = arguments
        for file in [log, eventLog] where !FileManager.default.createFile(atPath: file.path, contents: nil) {
            throw SoakError.system("creating \(file.path)", errno)
        }
        process.standardError = try FileHandle(forWritingTo: log)
        let output = Pipe()
        process.standardOutput = output
        let exited = exited
        process.terminationHandler = {
            exited.yield($0.terminationStatus)
            exited.finish()
        }
        try process.run()
        let events = try FileHandle(forWritingTo: eventLog)
        let reader = output.fileHandleForReading
        startThread("soak-events") { [self] in
            var pending = Data()
            while case let data = reader.availableData, !data.isEmpty {
                pending += data
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = pending[pending.startIndex..<newline]
                    events.write(Data(line) + Data([UInt8(ascii: "\n")]))
                    take(line)
                    pending = Data(pending[(newline + 1)...])
                }
            }
            try? events.close()
        }
        let pid = process.processIdentifier
        startThread("soak-memory") { [self] in
            while process.isRunning {
                if let kibibytes = ProcessStatus.kibibytes("VmRSS", of: pid) {
                    let sample = MemorySample(wallSeconds: elapsed, audioSeconds: Double(audioPosition()) / Double(SoakMaterial.sampleRate),
                                              kibibytes: kibibytes)
                    lock.withLock { memory.append(sample) }
                }
                Thread.sleep(forTimeInterval: 1)
            }
        }
    }

    /// The states in which the assistant works on a question (recording it costs next to nothing).
    static let busyStates: Set = ["transcribing", "asking", "speaking"]

    var events: [ReceivedEvent] { lock.withLock { received } }
    var memorySamples: [MemorySample] { lock.withLock { memory } }
    var isRunning: Bool { process.isRunning }
    var elapsed: Double {
        let duration = ContinuousClock.now - started
        return Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
    }

    /// Sends SIGINT and waits for the end (SIGKILL after `timeout`); returns the exit status,
    /// or nil when it had to be killed.
    func stop(timeout: Duration) async -> Int32? {
        if process.isRunning { process.interrupt() }
        let pid = process.processIdentifier
        let killed = ManagedAtomic(false)
        let killer = Task {
            try await Task.sleep(for: timeout)
            killed.store(true, ordering: .relaxed)
            kill(pid, SIGKILL)
        }
        var status: Int32 = -1
        for await code in exit { status = code }
        killer.cancel()
        done.wait()
        return killed.load(ordering: .relaxed) ? nil : status
    }

    private func take(_ line: Data) {
        guard let object = try? JSONSerialization.jsonObject(with: line) as? [String: Any] else { return }
        var fields: [String: SoakJSONValue] = [:]
        for (key, value) in object {
            switch value {
            case let text as String: fields[key] = .string(text)
            case let number as NSNumber: fields[key] = .number(number.doubleValue)
            default: fields[key] = .other
            }
        }
        let event = ReceivedEvent(fields: fields)
        if event.name == "state", let state = fields["state"]?.string {
            busy.store(Self.busyStates.contains(state), ordering: .relaxed)
        }
        lock.withLock { received.append(event) }
    }

    private func startThread(_ name: String, _ body: @escaping @Sendable () -> Void) {
        done.enter()
        let thread = Thread { [done] in
            body()
            done.leave()
        }
        thread.name = name
        thread.start()
    }
}
