import CPocketSphinx
import Foundation

/// pocketsphinx as the speech recogniser and the phrase spotter both use it. pocketsphinx is not
/// thread-safe — a decoder has no locking and the log is one process-wide file handle — so all
/// pocketsphinx work of the process (creating, decoding, freeing) is confined to one serial queue.
enum PocketSphinxEngine {
    static let queue = EngineQueue(label: "hotword.pocketsphinx")

    enum Failure: Error {
        /// The log file cannot be opened for appending.
        case logNotWritable(path: String)
        /// pocketsphinx rejected the arguments or could not load what they name.
        case rejected(arguments: [String])
    }

    /// The first of `required` (what it is, its path) that cannot be read, if any.
    static func firstMissing(_ required: [(role: String, path: String)]) -> (role: String, path: String)? {
        required.first { !FileManager.default.isReadableFile(atPath: $0.path) }
    }

    /// A decoder configured by command-line style `arguments` (name/value pairs), its log routed
    /// to `logFile` (nil silences it). Runs on `queue` only.
    static func createDecoder(arguments: [String], logFile: String?) throws(Failure) -> OpaquePointer {
        // pocketsphinx echoes its whole configuration while parsing arguments, before `-logfn`
        // takes effect; route the log first so nothing reaches our stderr.
        if let logFile {
            guard err_set_logfile(logFile) == 0 else { throw .logNotWritable(path: logFile) }
        } else {
            err_set_logfp(nil)
        }
        let arguments = arguments + ["-logfn", logFile ?? "/dev/null"]
        guard let config = parse(arguments) else { throw .rejected(arguments: arguments) }
        defer { cmd_ln_free_r(config) }
        guard let decoder = ps_init(config) else { throw .rejected(arguments: arguments) }
        return decoder
    }

    /// pocketsphinx's configuration object for `arguments`, or nil if rejected.
    private static func parse(_ arguments: [String]) -> OpaquePointer? {
        var argv = arguments.map { strdup($0) }
        defer { argv.forEach { free($0) } }
        return cmd_ln_parse_r(nil, ps_args(), Int32(argv.count), &argv, 1)
    }

    /// Frees `decoder` on the queue, without waiting (the last reference may be dropped on the
    /// queue itself).
    static func release(_ decoder: OpaquePointer) {
        let decoder = SendableDecoder(pointer: decoder)
        queue.enqueue { _ = ps_free(decoder.pointer) }
    }
}

/// Carries a decoder pointer between the caller and the queue that creates and frees it.
struct SendableDecoder: @unchecked Sendable {  // @unchecked: only dereferenced on the pocketsphinx queue
    let pointer: OpaquePointer
}
