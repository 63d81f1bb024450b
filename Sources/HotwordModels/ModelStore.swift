import Foundation
import HotwordCore

/// A model file that could not be read or written, with its path.
public enum ModelFileError: Error, Sendable, CustomStringConvertible {
    case missing(path: String)
    case unreadable(path: String, reason: String)
    case invalid(path: String, ModelError)
    case unwritable(path: String, reason: String)
    case notFound(name: String, fileExtension: String, searched: [String])

    public var description: String {
        switch self {
        case .missing(let path): "\(path): no such model file"
        case .unreadable(let path, let reason): "\(path): cannot read the model: \(reason)"
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

    private static func read(_ path: String) throws(ModelFileError) -> [UInt8] {
        guard FileManager.default.fileExists(atPath: path) else { throw .missing(path: path) }
        do {
            return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw .unreadable(path: path, reason: (error as NSError).localizedDescription)
        }
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
