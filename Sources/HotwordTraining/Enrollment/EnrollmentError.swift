import HotwordModels

/// Why a personal model could not be made; each case names the file or folder and what to do.
public enum EnrollmentError: Error, Sendable, CustomStringConvertible {
    case notEnoughTakes(have: Int, need: Int, folder: String)
    case invalidOption(name: String, value: String, expected: String)
    case folder(path: String, reason: String)
    case unreadableTake(path: String, reason: String)
    case synthesis(SynthesisError)
    case training(String)
    case model(ModelFileError)

    public var description: String {
        switch self {
        case .notEnoughTakes(let have, let need, let folder):
            "\(folder) holds \(have) usable take\(have == 1 ? "" : "s") of the wake word; at least \(need) are needed: record more (--samples) or give more files (--files)"
        case .invalidOption(let name, let value, let expected): "\(name) \(value) is invalid: expected \(expected)"
        case .folder(let path, let reason): "\(path): \(reason)"
        case .unreadableTake(let path, let reason): "take \(path): \(reason)"
        case .synthesis(let error): "synthetic voices: \(error)"
        case .training(let reason): "training: \(reason)"
        case .model(let error): error.description
        }
    }
}
