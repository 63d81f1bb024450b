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
        try routeLog(to: logFile)
        let arguments = arguments + ["-logfn", logFile ?? "/dev/null"]
        guard let config = parse(arguments) else { throw .rejected(arguments: arguments) }
        defer { cmd_ln_free_r(config) }
        guard let decoder = ps_init(config) else { throw .rejected(arguments: arguments) }
        return decoder
    }

    /// Sends pocketsphinx's process-wide log to `logFile`, appended; nil silences it.
    static func routeLog(to logFile: String?) throws(Failure) {
        if let logFile {
            guard err_set_logfile(logFile) == 0 else { throw .logNotWritable(path: logFile) }
        } else {
            err_set_logfp(nil)
        }
    }

    /// Makes `decoder` search with its language model interpolated linearly with the n-gram model
    /// in `path` (ARPA text or binary): P(w | h) = (1 − weight) · P_general(w | h) + weight ·
    /// P_file(w | h), each model backing off on its own (sphinxbase's model set). Words only one
    /// model knows keep that model's share. Runs on `queue` only; false if pocketsphinx refused.
    static func interpolate(_ decoder: OpaquePointer, with path: String, weight: Double) -> Bool {
        guard let current = ps_get_search(decoder), let general = ps_get_lm(decoder, current),
              let config = ps_get_config(decoder), let logMath = ps_get_logmath(decoder) else { return false }
        // The model read takes over one reference to the log tables; the set shares the first
        // model's without taking one of its own in some sphinxbase versions, so it gets one too
        // (at worst a few bytes kept for the decoder's lifetime, never tables freed under it).
        guard let questions = ngram_model_read(config, path, NGRAM_AUTO, logmath_retain(logMath)) else { return false }
        _ = logmath_retain(logMath)
        // The set takes over its models: the decoder's own search keeps its reference to the general one.
        var models: [OpaquePointer?] = [ngram_model_retain(general), questions]
        var names: [UnsafeMutablePointer<CChar>?] = [strdup("general"), strdup("questions")]
        defer { names.forEach { free($0) } }
        let weights: [Float] = [Float(1 - weight), Float(weight)]
        guard let set = ngram_model_set_init(config, &models, &names, weights, 2) else {
            models.forEach { _ = ngram_model_free($0) }
            return false
        }
        // The search takes its own reference to the set.
        defer { _ = ngram_model_free(set) }
        return ps_set_lm(decoder, "questions", set) == 0 && ps_set_search(decoder, "questions") == 0
    }

    /// The words of the n-gram model in `path` (ARPA text or binary), nil if pocketsphinx cannot
    /// read it. Loads the whole model for a moment. Runs on `queue` only.
    static func vocabulary(ofLanguageModel path: String) -> Set<String>? {
        guard let logMath = logmath_init(1.0001, 0, 0) else { return nil }
        // The model takes over the log tables' one reference.
        guard let model = ngram_model_read(nil, path, NGRAM_AUTO, logMath) else {
            _ = logmath_free(logMath)
            return nil
        }
        defer { _ = ngram_model_free(model) }
        guard let counts = ngram_model_get_counts(model) else { return nil }
        return Set((0..<Int32(counts[0])).compactMap { ngram_word(model, $0).map { String(cString: $0) } })
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
