import CCrypto
import Foundation

/// A pinned digest of a download: `sha256:<64 hex>`, or `md5:<32 hex>` where a corpus's
/// publishers give only that (the SHA-256 is then reported to be pinned).
public struct Checksum: Sendable, Equatable, CustomStringConvertible {
    public enum Algorithm: String, Sendable, CaseIterable {
        case sha256, md5

        var hexLength: Int { self == .sha256 ? 64 : 32 }
    }

    public let algorithm: Algorithm
    /// Lower-case hexadecimal.
    public let hex: String

    /// Nil unless `text` is `ALGORITHM:HEX` with the right number of hex digits.
    public init?(_ text: String) {
        let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
        guard parts.count == 2, let algorithm = Algorithm(rawValue: parts[0].lowercased()),
              parts[1].count == algorithm.hexLength, parts[1].allSatisfy(\.isHexDigit) else { return nil }
        self.algorithm = algorithm
        self.hex = parts[1].lowercased()
    }

    public var description: String { "\(algorithm.rawValue):\(hex)" }
}

/// Digests of a file, read once (OpenSSL's EVP digests).
public enum FileDigest {
    /// OpenSSL set up as the HTTP client sets it up, whichever comes first: without the exit-time
    /// cleanup that can pull it from under another thread.
    private static let openSSL = hotword_openssl_init_without_exit_cleanup()

    /// The hex digests of `url` by each of `algorithms`; `progress` gets the bytes read so far.
    public static func of(_ url: URL, algorithms: [Checksum.Algorithm],
                          progress: (Int64) -> Void = { _ in }) throws(CorpusError) -> [Checksum.Algorithm: String] {
        _ = openSSL
        guard let handle = FileHandle(forReadingAtPath: url.path) else {
            throw .unreadable(path: url.path, reason: String(cString: strerror(errno)))
        }
        defer { try? handle.close() }
        let contexts = algorithms.map { algorithm -> OpaquePointer in
            let context = EVP_MD_CTX_new()!
            EVP_DigestInit_ex(context, algorithm == .sha256 ? EVP_sha256() : EVP_md5(), nil)
            return context
        }
        defer { contexts.forEach { EVP_MD_CTX_free($0) } }
        var total: Int64 = 0
        while true {
            let chunk: Data
            do { chunk = try handle.read(upToCount: 1 << 20) ?? Data() } catch {
                throw .unreadable(path: url.path, reason: (error as NSError).localizedDescription)
            }
            if chunk.isEmpty { break }
            chunk.withUnsafeBytes { bytes in contexts.forEach { _ = EVP_DigestUpdate($0, bytes.baseAddress, bytes.count) } }
            total += Int64(chunk.count)
            progress(total)
        }
        var digests: [Checksum.Algorithm: String] = [:]
        for (algorithm, context) in zip(algorithms, contexts) {
            var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
            var length: UInt32 = 0
            EVP_DigestFinal_ex(context, &digest, &length)
            digests[algorithm] = digest.prefix(Int(length)).map { String(format: "%02x", $0) }.joined()
        }
        return digests
    }
}
