import Foundation

/// A backed-off model as ARPA text (the format of SRILM, CMU-Cambridge and pocketsphinx):
/// the `\data\` counts, then per order `log10(P) words [log10(backoff)]`, then `\end\`.
public enum ARPAText {
    /// What ARPA files write for log10(0): the probability of `<s>`, never predicted.
    static let logOfZero = -99.0

    /// The text of `model`, n-grams sorted within each order so equal models give equal files.
    /// `comment` lines go before `\data\`, where readers ignore them.
    public static func text(_ model: BackoffLanguageModel, comment: [String] = []) -> String {
        var lines = comment.map { "# " + $0 }
        lines += ["\\data\\"]
        lines += model.ngrams.indices.map { "ngram \($0 + 1)=\(model.ngrams[$0].count)" }
        for (index, ngrams) in model.ngrams.enumerated() {
            lines += ["", "\\\(index + 1)-grams:"]
            for words in ngrams.keys.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
                let entry = ngrams[words]!
                var line = format(log10(entry.probability)) + "\t" + words.joined(separator: " ")
                if let backoff = entry.backoff { line += "\t" + format(log10(backoff)) }
                lines.append(line)
            }
        }
        lines += ["", "\\end\\", ""]
        return lines.joined(separator: "\n")
    }

    private static func format(_ logarithm: Double) -> String {
        String(format: "%.6f", logarithm.isFinite ? logarithm : logOfZero)
    }
}
