import Foundation
import HotwordData

/// Shows a fetch on standard error: a progress bar redrawn in place on a terminal, a line per
/// tenth (or 100 MB) otherwise (logs, pipes). Events come from the transfer's thread.
final class FetchProgress: @unchecked Sendable {  // @unchecked: mutable state is guarded by `lock`
    private let corpus: String
    private let terminal = isatty(STDERR_FILENO) == 1
    private let lock = NSLock()
    private var lastDraw = ContinuousClock.now - .seconds(1)
    private var lastStep = -1
    /// A bar or counter is on the current line.
    private var drawn = false
    /// The download from the start was announced.
    private var announced = false
    private var started = (clock: ContinuousClock.now, bytes: Int64(0))

    init(corpus: String) { self.corpus = corpus }

    func show(_ event: FetchEvent) {
        lock.withLock {
            switch event {
            case .downloading(let url, let offset, let total):
                started = (ContinuousClock.now, offset)
                let size = total.map { " (\(CorpusSize.human($0)))" } ?? ""
                // Trying again from the start is not news: the retry said so.
                guard offset > 0 || !announced else { return }
                announced = true
                line(offset > 0 ? "\(corpus): resuming \(url)\(size) at \(CorpusSize.human(offset))" : "\(corpus): downloading \(url)\(size)")
            case .received(let bytes, let total):
                received(bytes, of: total)
            case .retrying(let reason, let offset, let attempt, let attempts) where offset > 0:
                line("\(corpus): \(reason); resuming at \(CorpusSize.human(offset)) (request \(attempt) of \(attempts))")
            case .retrying(let reason, _, let attempt, let attempts):
                // Nothing received yet (offline, say): once, not at every request.
                if attempt == 2 { line("\(corpus): \(reason); trying \(attempts - 1) more times") }
            case .verifying:
                line("\(corpus): checking the checksum")
            case .verified(let algorithm, let sha256, let size):
                line(algorithm == .sha256 ? "\(corpus): sha256 verified"
                     : "\(corpus): \(algorithm.rawValue) verified; to pin its SHA-256 in the catalogue: bytes \(size), checksum sha256:\(sha256)")
            case .unpacking(let files):
                if terminal, ContinuousClock.now - lastDraw >= .milliseconds(200) {
                    draw("\(corpus): unpacking, \(files) files kept")
                }
            }
        }
    }

    /// Ends a bar left on the line.
    func finish() {
        lock.withLock { if drawn { end() } }
    }

    private func received(_ bytes: Int64, of total: Int64?) {
        let elapsed = ContinuousClock.now - started.clock
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let rate = seconds > 0 ? Double(bytes - started.bytes) / seconds : 0
        let amount = total.map { "\(CorpusSize.human(bytes)) of \(CorpusSize.human($0))" } ?? CorpusSize.human(bytes)
        let fraction = total.map { Double(bytes) / Double(max($0, 1)) }
        if terminal {
            guard ContinuousClock.now - lastDraw >= .milliseconds(200) || bytes == total else { return }
            let bar = fraction.map { fraction in
                let filled = Int((fraction * 30).rounded(.down))
                return "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: 30 - filled) + "] "
                    + String(format: "%3.0f %% ", fraction * 100)
            } ?? ""
            draw("\(bar)\(amount), \(CorpusSize.human(Int64(rate)))/s")
        } else {
            // A line per tenth, or per 100 MB when the size is not known.
            let step = fraction.map { Int($0 * 10) } ?? Int(bytes / 100_000_000)
            guard step > lastStep else { return }
            lastStep = step
            line(fraction == nil ? "\(corpus): \(amount)" : "\(corpus): \(step * 10) %, \(amount)")
        }
    }

    private func draw(_ text: String) {
        FileHandle.standardError.write(Data("\r\u{1B}[K\(text)".utf8))
        drawn = true
        lastDraw = ContinuousClock.now
    }

    private func line(_ text: String) {
        if drawn { end() }
        FileHandle.standardError.write(Data("\(text)\n".utf8))
    }

    private func end() {
        FileHandle.standardError.write(Data("\n".utf8))
        drawn = false
    }
}
