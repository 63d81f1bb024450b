/// How a keyword is named by people: a model says "hey susi", a file name or a TOML key says
/// `hey_susi`. Both name the same keyword everywhere a keyword is looked up by name.
public enum KeywordName {
    /// `name` lower-cased, with underscores and hyphens read as spaces, and runs of spaces as one.
    public static func normalized(_ name: String) -> String {
        name.lowercased()
            .split(whereSeparator: { $0 == " " || $0 == "_" || $0 == "-" })
            .joined(separator: " ")
    }

    /// The keyword of `keywords` that `name` names, if any.
    public static func match(_ name: String, in keywords: [String]) -> String? {
        let wanted = normalized(name)
        return keywords.first { normalized($0) == wanted }
    }
}
