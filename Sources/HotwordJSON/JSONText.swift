import Foundation

/// JSON written by hand (events, SUSI values in tables, reports): one escaper for all of them.
public enum JSONText {
    /// `text` as a JSON string literal (RFC 8259): quotes, backslashes and control characters
    /// escaped, everything else (slashes, non-ASCII) as it is. DEL is escaped too, which JSON
    /// allows and TOML requires, so the literal is also a TOML basic string (`TOMLValue.tomlText`).
    public static func quoted(_ text: String) -> String {
        var quoted = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": quoted += "\\\""
            case "\\": quoted += "\\\\"
            case "\n": quoted += "\\n"
            case "\r": quoted += "\\r"
            case "\t": quoted += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: quoted += String(format: "\\u%04x", scalar.value)
            default: quoted.unicodeScalars.append(scalar)
            }
        }
        return quoted + "\""
    }
}
