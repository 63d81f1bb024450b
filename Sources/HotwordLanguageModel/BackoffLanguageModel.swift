/// A backed-off n-gram language model as the ARPA format holds it: for each order, the n-grams
/// seen with their conditional probability, and for each n-gram that is also a history, the
/// backoff weight that scales the next lower order's probabilities of the words never seen after it.
///
/// Probabilities and weights are linear (the ARPA text holds their base-10 logarithms).
public struct BackoffLanguageModel: Equatable, Sendable {
    /// The token every sentence starts with: a history only, never predicted (probability 0).
    public static let sentenceStart = "<s>"
    /// The token every sentence ends with: predicted like a word.
    public static let sentenceEnd = "</s>"

    public struct Entry: Equatable, Sendable {
        /// P(last word | the words before it).
        public var probability: Double
        /// The backoff weight of this n-gram as a history; nil where it is none (a weight of 1).
        public var backoff: Double?

        public init(probability: Double, backoff: Double? = nil) {
            self.probability = probability
            self.backoff = backoff
        }
    }

    /// `ngrams[n - 1]`: the n-grams of order n.
    public internal(set) var ngrams: [[[String]: Entry]]

    public var order: Int { ngrams.count }

    /// Every token the model can predict: the words and `sentenceEnd`.
    public var predictedTokens: [String] {
        ngrams.first.map { $0.keys.compactMap { $0 == [Self.sentenceStart] ? nil : $0[0] }.sorted() } ?? []
    }

    /// P(`word` | `history`) by backing off: the longest seen n-gram ending in `word`, scaled by
    /// the backoff weights of the histories passed over. 0 for a word outside the vocabulary.
    public func probability(of word: String, after history: [String]) -> Double {
        let history = Array(history.suffix(order - 1))
        if let entry = ngrams[history.count][history + [word]] { return entry.probability }
        guard !history.isEmpty else { return 0 }
        let weight = ngrams[history.count - 1][history]?.backoff ?? 1
        return weight * probability(of: word, after: Array(history.dropFirst()))
    }
}
