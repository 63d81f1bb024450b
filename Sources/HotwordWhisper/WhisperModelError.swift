/// Why a Whisper model folder could not be loaded; each case names the file (and the variable or
/// key) and what was expected, so a wrong or damaged download is told apart from a wrong path.
public enum WhisperModelError: Error, Equatable, CustomStringConvertible {
    /// A file the model needs is not there or cannot be read.
    case fileUnreadable(path: String, reason: String)
    /// The file ends before the part being read (`what`) is complete: a cut-off download.
    case truncated(path: String, what: String, offset: Int, needed: Int, fileSize: Int)
    /// A CTranslate2 binary version this reader does not know.
    case unsupportedVersion(path: String, version: UInt32, supported: UInt32)
    /// The file holds another kind of model than Whisper.
    case wrongSpec(path: String, found: String, expected: String)
    /// Something in the file is not what a Whisper model has (a variable's type or size, a scalar's value).
    case invalid(path: String, variable: String, found: String, expected: String)
    /// The model lacks a variable Whisper needs.
    case missingVariable(path: String, variable: String)
    /// A variable has a shape that does not fit the rest of the model.
    case wrongShape(path: String, variable: String, found: [Int], expected: [Int])
    /// config.json or vocabulary.txt does not fit the model.
    case invalidCompanion(path: String, key: String, expected: String)

    public var description: String {
        switch self {
        case .fileUnreadable(let path, let reason):
            "Whisper model: cannot read \(path): \(reason)"
        case .truncated(let path, let what, let offset, let needed, let fileSize):
            "Whisper model: \(path) is cut off: \(what) needs \(needed) bytes at byte \(offset), but the file has \(fileSize)"
        case .unsupportedVersion(let path, let version, let supported):
            "Whisper model: \(path) is CTranslate2 binary version \(version); expected version \(supported)"
        case .wrongSpec(let path, let found, let expected):
            "Whisper model: \(path) holds a \"\(found)\" model; expected \"\(expected)\""
        case .invalid(let path, let variable, let found, let expected):
            "Whisper model: \(path): \(variable) is \(found); expected \(expected)"
        case .missingVariable(let path, let variable):
            "Whisper model: \(path) has no variable \(variable)"
        case .wrongShape(let path, let variable, let found, let expected):
            "Whisper model: \(path): \(variable) has shape \(found); expected \(expected)"
        case .invalidCompanion(let path, let key, let expected):
            "Whisper model: \(path): \(key): expected \(expected)"
        }
    }
}
