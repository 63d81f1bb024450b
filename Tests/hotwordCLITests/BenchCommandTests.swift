import Foundation
import Testing

/// `hotword bench` on a pair: the speech embedding's cost is itemised, and the parts add up to
/// the whole detector's.
@Suite("hotword bench")
struct BenchCommandTests {
    @Test func aPairsPartsAreItemisedAndAddUpToTheTotal() async throws {
        let result = try await HotwordBinary.run(["bench", "--model", "computer", "--minutes", "0.1"])
        #expect(result.status == 0, "\(result.stderr)")
        // "NAME  RTF 0.001234  (…)", one line a part, then the total.
        var rows: [(name: String, rtf: Double)] = []
        for line in result.stdout.split(separator: "\n") {
            guard let range = line.range(of: "  RTF ") else { continue }
            let value = line[range.upperBound...].prefix { !$0.isWhitespace }
            rows.append((line[..<range.lowerBound].trimmingCharacters(in: .whitespaces), try #require(Double(value), "\(line)")))
        }
        let total = try #require(rows.last, "\(result.stdout)")
        #expect(total.name == "detector total")
        let parts = Dictionary(rows.dropLast().map { ($0.name, $0.rtf) }, uniquingKeysWith: +)
        #expect(Set(parts.keys) == ["log-mel front end (PCEN)", "log-mel networks", "speech embedding: mel front end",
                                    "speech embedding: network", "heads on the speech embedding",
                                    "other (gates, fusion, scores, smoothing, triggers)"], "\(result.stdout)")
        // Each row is rounded to a millionth.
        #expect(abs(parts.values.reduce(0, +) - total.rtf) <= 0.5e-6 * Double(rows.count), "\(result.stdout)")
        // The parts measured on their own are most of it ("other" is a few percent, but parts timed
        // one after another on a shared machine move by tens of percent): nothing large is left out.
        let other = try #require(parts["other (gates, fusion, scores, smoothing, triggers)"])
        #expect(abs(other) < 0.5 * total.rtf, "\(result.stdout)")
    }
}
