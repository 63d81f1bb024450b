import Foundation

/// Where tests find the project and the shared data set (`../shared` beside the project root).
public enum TestPaths {
    /// The project root: this file lives at `Tests/HotwordTestSupport/Paths.swift`.
    public static let projectRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `../shared/data` beside the project root, where recordings, noise and room responses live.
    public static let sharedData: URL = projectRoot.deletingLastPathComponent()
        .appendingPathComponent("shared/data")

    /// A fresh temporary directory, removed by the caller when done.
    public static func temporaryDirectory(_ prefix: String = "hotword-test") throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
