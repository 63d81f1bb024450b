/// Interpolated Witten–Bell smoothing (Witten & Bell 1991; in the interpolated form of Chen &
/// Goodman 1998, SRILM's `-wbdiscount -interpolate`), written as a backed-off model.
///
/// For a history h followed by c(h) tokens of T(h) distinct words:
///
///     P(w | h) = (c(h w) + T(h) · P(w | h')) / (c(h) + T(h))      h' = h without its first word
///
/// The lower order gets the share T(h) / (c(h) + T(h)): a history followed by many different
/// words is likely to be followed by a new one. Unseen words get exactly that share of the lower
/// order, so the backoff weight of h is T(h) / (c(h) + T(h)) and every history's distribution
/// sums to one. Unigrams are maximum likelihood: the vocabulary is the corpus's words, and
/// words outside it are left to the model this one is interpolated with.
public enum WittenBell {
    /// The model of `counts.order` (1 = unigrams) estimated from `counts`.
    public static func model(_ counts: NGramCounts) -> BackoffLanguageModel {
        let unigramTotal = Double(counts.ngrams[0].values.reduce(0, +))
        var model = BackoffLanguageModel(ngrams: [counts.ngrams[0].mapValues {
            BackoffLanguageModel.Entry(probability: Double($0) / unigramTotal)
        }])
        // <s> starts every sentence and is never predicted; it is listed so it can carry a backoff weight.
        model.ngrams[0][[BackoffLanguageModel.sentenceStart]] = BackoffLanguageModel.Entry(probability: 0)
        for order in stride(from: 2, through: counts.order, by: 1) {
            var histories: [ArraySlice<String>: (tokens: Int, types: Int)] = [:]
            for (ngram, count) in counts.ngrams[order - 1] {
                histories[ngram.dropLast(), default: (0, 0)].tokens += count
                histories[ngram.dropLast(), default: (0, 0)].types += 1
            }
            var entries: [[String]: BackoffLanguageModel.Entry] = [:]
            for (ngram, count) in counts.ngrams[order - 1] {
                let history = histories[ngram.dropLast()]!
                let lower = model.probability(of: ngram[order - 1], after: Array(ngram[1..<(order - 1)]))
                entries[ngram] = BackoffLanguageModel.Entry(
                    probability: (Double(count) + Double(history.types) * lower) / Double(history.tokens + history.types))
            }
            for (history, seen) in histories {
                model.ngrams[order - 2][Array(history)]?.backoff = Double(seen.types) / Double(seen.tokens + seen.types)
            }
            model.ngrams.append(entries)
        }
        return model
    }
}
