/// What a corpus's audio is for when training; each is a folder of the fetched corpus.
public enum CorpusRole: String, CaseIterable, Sendable, Comparable {
    /// Short recordings of single words: negatives, made the way keyword clips are made.
    case words
    /// Longer speech: negatives.
    case speech
    /// Background noise to mix under everything (`--noise`).
    case noise
    /// Room impulse responses for reverberation (`--rirs`).
    case rirs

    /// Negatives for `train`, `enroll` and `eval` (`--negatives`).
    public static let negatives: [CorpusRole] = [.words, .speech]

    public static func < (a: CorpusRole, b: CorpusRole) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}
