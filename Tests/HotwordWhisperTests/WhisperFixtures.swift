import HotwordTestSupport
import HotwordWhisper
import Testing

enum WhisperFixtures {
    static let modelFolder = WhisperTestModel.folder
    static let skipReason = Comment(rawValue: WhisperTestModel.skipReason)

    /// The model, loaded once for the whole run (under a second, 150 MB).
    static let model: Result<WhisperModel, WhisperModelError>? = modelFolder.map { folder in
        Result { () throws(WhisperModelError) in try WhisperModel(folder: folder) }
    }
}
