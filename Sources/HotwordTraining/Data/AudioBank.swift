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
        let results = ParallelFor.map(paths.count, threads: threads) { index -> Result<[Float], TrainingError> in
            let path = paths[index]
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
