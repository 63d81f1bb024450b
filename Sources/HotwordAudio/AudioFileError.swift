/// Why an audio file could not be read or written. Every case names the file.
public enum AudioFileError: Error, Equatable, CustomStringConvertible {
    /// Nothing exists at the path.
    case missing(path: String)
    /// The file exists but cannot be read: permissions, a directory, an I/O error.
    case unreadable(path: String, reason: String)
    /// libsndfile does not recognise the content as audio (or finds it malformed); `reason` is its text.
    case notAudio(path: String, reason: String)
    /// Audio, but not something we accept: e.g. no channels, a rate outside 1 kHz ... 384 kHz,
    /// an encoding libsndfile was built without.
    case unsupported(path: String, reason: String)
    /// Converting the file's rate to the requested one failed.
    case conversionFailed(path: String, ResamplerError)
    /// Writing failed (cannot create, disk full, rename failed...); no partial file was left behind.
    case cannotWrite(path: String, reason: String)

    public var path: String {
        switch self {
        case let .missing(path), let .unreadable(path, _), let .notAudio(path, _), let .unsupported(path, _),
             let .conversionFailed(path, _), let .cannotWrite(path, _):
            return path
        }
    }

    public var description: String {
        switch self {
        case let .missing(path):
            return "audio file \(path) does not exist"
        case let .unreadable(path, reason):
            return "cannot read audio file \(path): \(reason)"
        case let .notAudio(path, reason):
            return "\(path) is not an audio file that libsndfile can read: \(reason)"
        case let .unsupported(path, reason):
            return "audio file \(path) is not supported: \(reason)"
        case let .conversionFailed(path, error):
            return "cannot resample audio file \(path): \(error)"
        case let .cannotWrite(path, reason):
            return "cannot write audio file \(path): \(reason)"
        }
    }
}
