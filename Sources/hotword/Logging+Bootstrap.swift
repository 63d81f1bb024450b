import Logging

/// Logs go to standard error, at `.debug` with `--verbose` and at `quiet` otherwise.
func bootstrapLogging(verbose: Bool, quiet: Logger.Level) {
    let level: Logger.Level = verbose ? .debug : quiet
    LoggingSystem.bootstrap { label in
        var handler = StreamLogHandler.standardError(label: label)
        handler.logLevel = level
        return handler
    }
}
