import Foundation

/// Reads a password: from a terminal after a prompt on standard error with echo off, otherwise one
/// line of standard input (so scripts can pipe it in without it showing in `ps`).
enum PasswordPrompt {
    static func read(_ prompt: String) throws -> String {
        guard isatty(STDIN_FILENO) == 1 else {
            guard let line = readLine(strippingNewline: true), !line.isEmpty else {
                throw CommandFailure("no password on standard input")
            }
            return line
        }
        FileHandle.standardError.write(Data(prompt.utf8))
        var saved = termios()
        tcgetattr(STDIN_FILENO, &saved)
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent)
        let line = readLine(strippingNewline: true)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
        // The Return the user typed was not echoed either.
        FileHandle.standardError.write(Data("\n".utf8))
        guard let line, !line.isEmpty else { throw CommandFailure("no password given") }
        return line
    }
}
