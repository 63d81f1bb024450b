/// Splits work into parts that depend only on the problem size, never on the thread count, so
/// results are bit-identical with 1 or many threads: threads only decide who runs which part,
/// and reductions add the parts' partial sums in part order.
struct Parallelism: Sendable {
    /// Worker threads (1 = run everything on the calling thread).
    let threads: Int

    /// The most parts any job is cut into (enough for a 4-core Raspberry Pi).
    static let maximumParts = 4

    /// How many parts `count` items are cut into when each part should get at least `minimumPerPart`.
    static func parts(count: Int, minimumPerPart: Int) -> Int {
        max(1, min(maximumParts, count / max(minimumPerPart, 1)))
    }

    /// Items of part `part` out of `parts` over `0..<count` (near-equal contiguous ranges).
    static func range(part: Int, of parts: Int, count: Int) -> Range<Int> {
        (count * part / parts)..<(count * (part + 1) / parts)
    }

    /// Runs `body(part, range)` for every part of `0..<count`, concurrently when there are threads to spare.
    func forEachPart(count: Int, minimumPerPart: Int, _ body: (Int, Range<Int>) -> Void) {
        let parts = Parallelism.parts(count: count, minimumPerPart: minimumPerPart)
        ParallelFor.run(parts, threads: threads) { part in body(part, Parallelism.range(part: part, of: parts, count: count)) }
    }
}
