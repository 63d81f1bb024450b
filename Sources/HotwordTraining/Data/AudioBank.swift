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

/// `map` over an array on several threads, results in input order.
enum ParallelMap {
    static func map<T, R>(_ items: [T], threads: Int, _ transform: (T) -> R) -> [R] {
        guard threads > 1, items.count > 1 else { return items.map(transform) }
        var results = [R?](repeating: nil, count: items.count)
        let lock = NSLock()
        var next = 0
        results.withUnsafeMutableBufferPointer { output in
            let output = output
            DispatchQueue.concurrentPerform(iterations: min(threads, items.count)) { _ in
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
        return results.map { $0! }
    }
}
