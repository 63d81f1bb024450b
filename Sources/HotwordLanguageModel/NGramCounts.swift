/// How often each n-gram of orders 1…`order` occurs in sentences, each sentence padded with
/// `<s>` before and `</s>` after. `<s>` only ever begins an n-gram (it is never predicted), so it
/// has no unigram count.
public struct NGramCounts: Equatable, Sendable {
    public let order: Int
    /// `ngrams[n - 1]`: the n-grams of order n and their counts.
    public private(set) var ngrams: [[[String]: Int]]

    /// `order` of at least 1; empty sentences are passed over.
    public init(sentences: [[String]], order: Int) {
        precondition(order >= 1, "an n-gram model has order 1 or more")
        self.order = order
        ngrams = Array(repeating: [:], count: order)
        for sentence in sentences where !sentence.isEmpty {
            let tokens = [BackoffLanguageModel.sentenceStart] + sentence + [BackoffLanguageModel.sentenceEnd]
            for end in 1..<tokens.count {
                for length in 1...min(order, end + 1) {
                    ngrams[length - 1][Array(tokens[(end - length + 1)...end]), default: 0] += 1
                }
            }
        }
    }
}
