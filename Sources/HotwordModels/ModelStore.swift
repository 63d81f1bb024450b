import Foundation
import HotwordCore
#if canImport(Glibc)
import Glibc
#endif

/// A model file that could not be read or written, with its path.
public enum ModelFileError: Error, Sendable, CustomStringConvertible {
    case missing(path: String)
    case unreadable(path: String, reason: String)
    /// Larger than any model could be (`ModelStore.maximumFileBytes`): refused before reading.
    case tooLarge(path: String, bytes: Int, limit: Int)
    case invalid(path: String, ModelError)
    case unwritable(path: String, reason: String)
    case notFound(name: String, fileExtension: String, searched: [String])

    public var description: String {
        switch self {
        case .missing(let path): "\(path): no such model file"
        case .unreadable(let path, let reason): "\(path): cannot read the model: \(reason)"
        case .tooLarge(let path, let bytes, let limit):
            "\(path): \(bytes) bytes is larger than any model (at most \(limit / (1 << 20)) MiB); not read"
        case .invalid(let path, let error): "\(path): \(error)"
        case .unwritable(let path, let reason): "\(path): cannot write the model: \(reason)"
        case .notFound(let name, let fileExtension, let searched):
            "no model named '\(name)' (looked for \(name).\(fileExtension) in \(searched.joined(separator: ", "))); give a path or install the models"
        }
    }
}

/// Reads and writes model files, and finds the bundled models by name.
public enum ModelStore {
    public static let fileExtension = "hwks"

    public static func load(_ path: String) throws(ModelFileError) -> KeywordModel {
        let bytes = try read(path)
        do {
            return try ModelFile.decode(bytes)
        } catch {
            throw .invalid(path: path, error)
        }
    }

    /// Writes atomically: a temporary file in the same folder, flushed, then renamed over the
    /// target, so a crash or a full disk never leaves a half-written model behind.
    public static func save(_ model: KeywordModel, to path: String) throws(ModelFileError) {
        let bytes: [UInt8]
        do {
            bytes = try ModelFile.encode(model)
        } catch {
            throw .invalid(path: path, error)
        }
        let temporary = path + ".partial-\(getpid())"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .unwritable(path: path, reason: String(cString: strerror(errno))) }
        var failure: String?
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = String(cString: strerror(errno))
                    return
                }
                offset += written
            }
        }
        if failure == nil, fsync(descriptor) != 0 { failure = String(cString: strerror(errno)) }
        close(descriptor)
        if failure == nil, rename(temporary, path) != 0 { failure = String(cString: strerror(errno)) }
        if let failure {
            unlink(temporary)
            throw .unwritable(path: path, reason: failure)
        }
    }

    /// Folders searched for models given by name, in order: `$HOTWORD_MODELS`, the source
    /// tree's `Models/` next to a development build, then the installed locations.
    public static func searchPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        InstalledFiles.searchPath(sourceFolder: "Models", installedFolder: "models", override: environment["HOTWORD_MODELS"])
    }

    /// A path (anything with a '/' or ending in .hwks) is loaded as is; a bare name such as
    /// `hey_susi` is looked up in `searchPath()`.
    public static func resolve(_ nameOrPath: String, fileExtension: String = fileExtension) throws(ModelFileError) -> String {
        if nameOrPath.contains("/") || nameOrPath.hasSuffix(".\(fileExtension)") { return nameOrPath }
        let folders = searchPath()
        for folder in folders {
            let candidate = (folder as NSString).appendingPathComponent("\(nameOrPath).\(fileExtension)")
            if FileManager.default.fileExists(atPath: candidate) { return candidate }
        }
        throw .notFound(name: nameOrPath, fileExtension: fileExtension, searched: folders)
    }

    /// The speech embedding keyword models can be trained on (`hotword train --features
    /// speech-embedding`), by name (`speech_embedding`, found like models) or path.
    public static func loadEmbedding(named nameOrPath: String = "speech_embedding") throws(ModelFileError) -> SpeechEmbedding {
        let path = try resolve(nameOrPath, fileExtension: "hwse")
        let bytes = try read(path)
        do {
            return try SpeechEmbeddingFile.decode(bytes)
        } catch {
            throw .invalid(path: path, error)
        }
    }

    /// The largest model file read: today's models are under 10 MB, and a file is held in
    /// memory whole (twice, briefly) while it is checked.
    public static let maximumFileBytes = 64 << 20

    /// The file's bytes, its size checked first, so a huge file or a device is never read whole.
    private static func read(_ path: String) throws(ModelFileError) -> [UInt8] {
        // Non-blocking, so a FIFO given as a model is refused below rather than waited on.
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            if errno == ENOENT { throw .missing(path: path) }
            throw .unreadable(path: path, reason: String(cString: strerror(errno)))
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw .unreadable(path: path, reason: "not a regular file (a folder or a device), so not a model")
        }
        let size = Int(status.st_size)
        guard size <= maximumFileBytes else { throw .tooLarge(path: path, bytes: size, limit: maximumFileBytes) }
        var bytes = [UInt8](repeating: 0, count: size)
        var filled = 0
        while filled < size {
            let count = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress! + filled, size - filled) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
            if count == 0 { break }  // the file shrank meanwhile: the format's length checks say what is missing
            filled += count
        }
        bytes.removeSubrange(filled...)
        return bytes
    }

    /// The names of the models found in `searchPath()`, as `load(named:)` takes them.
    public static func bundledNames() -> [String] {
        let files = searchPath().flatMap { (try? FileManager.default.contentsOfDirectory(atPath: $0)) ?? [] }
        return Array(Set(files.filter { $0.hasSuffix(".\(fileExtension)") }.map { String($0.dropLast(fileExtension.count + 1)) })).sorted()
    }

    /// Loads a model by name or path.
    public static func load(named nameOrPath: String) throws(ModelFileError) -> KeywordModel {
        try load(try resolve(nameOrPath))
    }
}
