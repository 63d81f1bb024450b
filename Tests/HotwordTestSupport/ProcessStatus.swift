import Foundation

/// Figures of a process's `/proc/PID/status`: memory bounds checked in tests with a generous margin.
public enum ProcessStatus {
    /// A figure in KiB: `VmRSS` (resident now), `VmHWM` (the peak of resident memory). Of this
    /// process without `pid`; nil if the process or the field is not there.
    public static func kibibytes(_ field: String, of pid: Int32? = nil) -> Int? {
        let path = "/proc/\(pid.map(String.init) ?? "self")/status"
        guard let status = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("\(field):") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        }
        return nil
    }

    /// Starts this process's peak (`VmHWM`) afresh from what is resident now (Linux's
    /// `clear_refs` 5), so a test can measure the peak of what it does; false where not allowed.
    public static func resetPeak() -> Bool {
        guard let file = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
        defer { try? file.close() }
        return (try? file.write(contentsOf: Data("5".utf8))) != nil
    }
}
