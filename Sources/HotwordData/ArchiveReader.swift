import CArchive
import Foundation

/// Reads the members of a tar (plain, gzip, bzip2, xz) or zip archive one after the other
/// (libarchive), without unpacking what is not asked for.
final class ArchiveReader {
    private let archive: OpaquePointer
    private let path: String

    init(_ url: URL) throws(CorpusError) {
        path = url.path
        guard let archive = archive_read_new() else { throw .archive(path: url.path, reason: "archive_read_new failed") }
        self.archive = archive
        archive_read_support_filter_all(archive)
        archive_read_support_format_all(archive)
        // On failure deinit frees the handle: every stored property is set by now.
        guard archive_read_open_filename(archive, url.path, 1 << 20) == ARCHIVE_OK else {
            throw .archive(path: url.path, reason: Self.message(archive))
        }
    }

    deinit { archive_read_free(archive) }

    /// The path of the next regular file in the archive (folders and links are passed over),
    /// or nil at the end. Its content is read with `copy(to:)` or passed over by the next call.
    func nextFile() throws(CorpusError) -> String? {
        while true {
            var entry: OpaquePointer?
            let status = archive_read_next_header(archive, &entry)
            if status == ARCHIVE_EOF { return nil }
            guard status == ARCHIVE_OK || status == ARCHIVE_WARN, let entry else {
                throw .archive(path: path, reason: Self.message(archive))
            }
            if hotword_archive_entry_is_file(entry) != 0, let name = archive_entry_pathname(entry) {
                return String(cString: name)
            }
        }
    }

    /// Writes the current member's content to `descriptor`; `written` names the file for errors.
    func copy(to descriptor: Int32, written path: String) throws(CorpusError) {
        var buffer: UnsafeRawPointer?
        var size = 0
        var offset: la_int64_t = 0
        while true {
            let status = archive_read_data_block(archive, &buffer, &size, &offset)
            if status == ARCHIVE_EOF { return }
            guard status == ARCHIVE_OK || status == ARCHIVE_WARN else { throw .archive(path: self.path, reason: Self.message(archive)) }
            // Sparse members have holes: write each block at its offset.
            guard lseek(descriptor, off_t(offset), SEEK_SET) >= 0 else { throw .unwritable(path: path, reason: String(cString: strerror(errno))) }
            var done = 0
            while done < size {
                let count = write(descriptor, buffer! + done, size - done)
                if count < 0 {
                    if errno == EINTR { continue }
                    throw .unwritable(path: path, reason: String(cString: strerror(errno)))
                }
                done += count
            }
        }
    }

    private static func message(_ archive: OpaquePointer) -> String {
        archive_error_string(archive).map { String(cString: $0) } ?? "unknown libarchive error"
    }
}
