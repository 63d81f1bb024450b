import Foundation
import HotwordAudio

/// Audio clips loaded into memory at 16 kHz mono, read in parallel.
public struct AudioBank: Sendable {
    public var clips: [[Float]]
    public var paths: [String]

    public var totalSamples: Int { clips.reduce(0) { $0 + $1.count } }

    /// Reads every file; unreadable or empty ones are skipped and reported through `onSkip`.
    public static func load(_ paths: [String], threads: Int = ProcessInfo.processInfo.activeProcessorCount,
                            onSkip: (String) -> Void = { _ in }) -> AudioBank {
        let results = ParallelMap.map(paths, threads: threads) { path -> Result<[Float], TrainingError> in
            do {
                return .success(try AudioFileReader.read(URL(fileURLWithPath: path)).samples)
            } catch {
                return .failure(.unreadableClip(path: path, reason: "\(error)"))
            }
        }
        var bank = AudioBank(clips: [], paths: [])
        for (path, result) in zip(paths, results) {
            switch result {
            case .success(let samples) where !samples.isEmpty:
                bank.clips.append(samples)
                bank.paths.append(path)
            case .success:
                onSkip("\(path): empty")
            case .failure(let error):
                onSkip("\(error)")
            }
        }
        return bank
    }
}

/// `map` over an array on several threads (items taken in turn from a shared counter, so
/// uneven work balances), results in input order.
enum ParallelMap {
    static func map<T, R>(_ items: [T], threads: Int, _ transform: (T) -> R) -> [R] {
        guard threads > 1, items.count > 1 else { return items.map(transform) }
        var results = [R?](repeating: nil, count: items.count)
        results.withUnsafeMutableBufferPointer { output in
            withoutActuallyEscaping(transform) { transform in
                let work = SharedWork(items: items, output: output, transform: transform)
                DispatchQueue.concurrentPerform(iterations: min(threads, items.count)) { _ in work.run() }
            }
        }
        return results.map { $0! }
    }
}

/// Each index is claimed once under the lock and written by one thread only, and `map`
/// returns after every worker is done, so sharing the buffer and closure is safe.
private final class SharedWork<T, R>: @unchecked Sendable {
    let items: [T]
    let output: UnsafeMutableBufferPointer<R?>
    let transform: (T) -> R
    private let lock = NSLock()
    private var next = 0

    init(items: [T], output: UnsafeMutableBufferPointer<R?>, transform: @escaping (T) -> R) {
        self.items = items
        self.output = output
        self.transform = transform
    }

    func run() {
        while true {
            let index: Int = lock.withLock {
                defer { next += 1 }
                return next
            }
            guard index < items.count else { return }
            output[index] = transform(items[index])
        }
    }
}
