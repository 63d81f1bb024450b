import CSndFile
import Foundation

/// Small helpers shared by the libsndfile-based reader and writer.
enum SndFile {
    /// libsndfile's text for the last error on `file`, or for the last failed open when `file` is nil.
    static func errorText(_ file: OpaquePointer?) -> String {
        String(cString: sf_strerror(file))
    }

    /// The C library's text for the current `errno`.
    static func systemErrorText() -> String {
        String(cString: strerror(errno))
    }
}
