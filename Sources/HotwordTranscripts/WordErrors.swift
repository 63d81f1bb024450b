/// How a transcript differs from its reference, word by word: the fewest substitutions,
/// deletions (reference words missing) and insertions (words added) that turn the reference into
/// the transcript (Levenshtein over words). Among alignments with the fewest edits, a
/// substitution is preferred to a deletion and an insertion, and a deletion to an insertion
/// (as NIST's sclite counts them).
public struct WordErrors: Sendable, Equatable {
    public var substitutions = 0
    public var deletions = 0
    public var insertions = 0
    /// The number of words of the reference.
    public var referenceWords = 0

    public init(substitutions: Int = 0, deletions: Int = 0, insertions: Int = 0, referenceWords: Int = 0) {
        self.substitutions = substitutions
        self.deletions = deletions
        self.insertions = insertions
        self.referenceWords = referenceWords
    }

    /// The errors of `hypothesis` against `reference` (both already normalised: `TranscriptWords`).
    public init(reference: [String], hypothesis: [String]) {
        referenceWords = reference.count
        // costs[i][j]: the fewest edits turning reference[..<i] into hypothesis[..<j].
        var costs = [[Int]](repeating: [Int](repeating: 0, count: hypothesis.count + 1), count: reference.count + 1)
        for i in 0...reference.count { costs[i][0] = i }
        for j in 0...hypothesis.count { costs[0][j] = j }
        for i in stride(from: 1, through: reference.count, by: 1) {
            for j in stride(from: 1, through: hypothesis.count, by: 1) {
                let diagonal = costs[i - 1][j - 1] + (reference[i - 1] == hypothesis[j - 1] ? 0 : 1)
                costs[i][j] = min(diagonal, costs[i - 1][j] + 1, costs[i][j - 1] + 1)
            }
        }
        // Back from the end, taking the preferred step wherever it lies on a cheapest path.
        var (i, j) = (reference.count, hypothesis.count)
        while i > 0 || j > 0 {
            if i > 0, j > 0, costs[i][j] == costs[i - 1][j - 1] + (reference[i - 1] == hypothesis[j - 1] ? 0 : 1) {
                if reference[i - 1] != hypothesis[j - 1] { substitutions += 1 }
                (i, j) = (i - 1, j - 1)
            } else if i > 0, costs[i][j] == costs[i - 1][j] + 1 {
                deletions += 1
                i -= 1
            } else {
                insertions += 1
                j -= 1
            }
        }
    }

    public var errors: Int { substitutions + deletions + insertions }

    /// Errors per reference word (may exceed 1 with many insertions); nil for an empty reference.
    public var rate: Double? {
        referenceWords == 0 ? nil : Double(errors) / Double(referenceWords)
    }

    /// The errors of two sets of utterances together: the total's rate weighs each by its words.
    public static func + (lhs: WordErrors, rhs: WordErrors) -> WordErrors {
        WordErrors(substitutions: lhs.substitutions + rhs.substitutions, deletions: lhs.deletions + rhs.deletions,
                   insertions: lhs.insertions + rhs.insertions, referenceWords: lhs.referenceWords + rhs.referenceWords)
    }
}
