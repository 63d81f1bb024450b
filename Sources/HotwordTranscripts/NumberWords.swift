/// Numbers written with digits, as the words a speaker says for them: "21" → "twenty one",
/// "1,500" → "one thousand five hundred", "28.8" → "twenty eight point eight". A transcript and
/// its reference then compare equal however either writes a number.
enum NumberWords {
    private static let ones = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                               "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"]
    private static let tens = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
    private static let scales = ["", "thousand", "million", "billion"]

    /// The words of `digits`: digits only, with optional thousands commas ("1,500") and one decimal
    /// point. A whole number with a leading zero ("007", a code or a phone number) and one too
    /// long for the scales (over 999 999 999 999) are said digit by digit, as people read them;
    /// so are the digits after the point.
    static func words(_ number: Substring) -> [String] {
        let parts = number.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = parts[0].filter { $0 != "," }
        var words = wholeNumber(whole)
        if parts.count == 2, !parts[1].isEmpty {
            words += ["point"] + digitByDigit(Substring(parts[1]))
        }
        return words
    }

    private static func wholeNumber(_ digits: String) -> [String] {
        guard !digits.isEmpty else { return [] }
        guard digits.count <= 3 * scales.count, !(digits.count > 1 && digits.hasPrefix("0")), let value = Int(digits) else {
            return digitByDigit(Substring(digits))
        }
        guard value > 0 else { return ["zero"] }
        var words: [String] = []
        var remaining = value
        var groups: [Int] = []
        while remaining > 0 {
            groups.append(remaining % 1000)
            remaining /= 1000
        }
        for (scale, group) in groups.enumerated().reversed() where group > 0 {
            words += belowThousand(group)
            if !scales[scale].isEmpty { words.append(scales[scale]) }
        }
        return words
    }

    private static func belowThousand(_ value: Int) -> [String] {
        var words: [String] = []
        if value >= 100 { words += [ones[value / 100], "hundred"] }
        let rest = value % 100
        if rest >= 20 {
            words.append(tens[rest / 10])
            if rest % 10 > 0 { words.append(ones[rest % 10]) }
        } else if rest > 0 {
            words.append(ones[rest])
        }
        return words
    }

    private static func digitByDigit(_ digits: Substring) -> [String] {
        digits.compactMap { $0.wholeNumberValue.map { ones[$0] } }
    }
}
