import Foundation
import GRDB

/// Why the history database could not be opened, read or written. Each names the file.
public enum HistoryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file (or its folder) cannot be created or opened.
    case cannotOpen(path: String, reason: String)
    /// The file is something other than a SQLite database.
    case notADatabase(path: String)
    /// A newer hotword has changed the file in ways this one does not know.
    case newerVersion(path: String, unknown: [String])
    /// The disk holding the file is full: nothing was written.
    case diskFull(path: String)
    /// Anything else SQLite reported while `operation` ran.
    case failed(path: String, operation: String, reason: String)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason):
            "cannot open the history database \(path): \(reason)"
        case .notADatabase(let path):
            "the history database \(path) is not a SQLite database (move it away, or set [history] file)"
        case .newerVersion(let path, let unknown):
            "the history database \(path) was changed by a newer hotword (\(unknown.joined(separator: ", "))): update hotword"
        case .diskFull(let path):
            "the disk holding the history database \(path) is full: the exchange was not recorded"
        case .failed(let path, let operation, let reason):
            "history database \(path): \(operation) failed: \(reason)"
        }
    }

    /// `error` (from SQLite through GRDB) as one of these, while `operation` ran on `path`.
    static func from(_ error: any Error, path: String, operation: String) -> HistoryError {
        if let history = error as? HistoryError { return history }
        guard let database = error as? DatabaseError else {
            return .failed(path: path, operation: operation, reason: "\(error)")
        }
        switch database.resultCode {
        case .SQLITE_FULL: return .diskFull(path: path)
        case .SQLITE_NOTADB: return .notADatabase(path: path)
        case .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_READONLY:
            return .cannotOpen(path: path, reason: database.message ?? "\(database.resultCode)")
        default:
            return .failed(path: path, operation: operation, reason: database.message ?? "\(database.resultCode)")
        }
    }
}
