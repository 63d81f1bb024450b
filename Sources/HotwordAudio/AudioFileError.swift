/// Why an audio file could not be read or written. Every case names the file.
public enum AudioFileError: Error, Equatable, CustomStringConvertible {
    /// Writing failed (cannot create, disk full, rename failed...); no partial file was left behind.
    case cannotWrite(path: String, reason: String)

    public var description: String {
        switch self {
        case let .cannotWrite(path, reason):
            return "cannot write audio file \(path): \(reason)"
        }
    }
}
