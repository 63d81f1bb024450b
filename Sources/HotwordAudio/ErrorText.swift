import CSndFile
import Foundation

/// Error texts from the C libraries, for the `reason` of our typed errors.
enum ErrorText {
    /// libsndfile's text for the last error on `file`, or for the last failed open when `file` is nil.
    static func sndfile(_ file: OpaquePointer?) -> String {
        String(cString: sf_strerror(file))
    }

    /// The C library's text for the current `errno`.
    static func system() -> String {
        String(cString: strerror(errno))
    }
}
