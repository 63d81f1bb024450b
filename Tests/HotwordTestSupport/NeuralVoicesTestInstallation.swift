import Foundation

/// The neural voices as `scripts/install-voices.sh --prefix .build-voices` installs them (what
/// scripts/test.sh runs when PyPI can be reached), or $HOTWORD_VOICES_PREFIX. Tests that speak with
/// piper are skipped without it.
public enum NeuralVoicesTestInstallation {
    public static let prefix: URL? = {
        let prefix = ProcessInfo.processInfo.environment["HOTWORD_VOICES_PREFIX"].map { URL(fileURLWithPath: $0) }
            ?? TestPaths.projectRoot.appendingPathComponent(".build-voices")
        return FileManager.default.isExecutableFile(atPath: prefix.appendingPathComponent("bin/piper").path) ? prefix : nil
    }()

    public static let skipReason = "no piper: run scripts/install-voices.sh --prefix .build-voices (or set HOTWORD_VOICES_PREFIX)"
}
