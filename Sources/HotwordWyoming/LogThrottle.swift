/// At most `linesPerPeriod` log lines per `period`: one client (or a flood of them) cannot fill
/// the log. The lines dropped are counted, and the count is told with the next line let through.
struct LogThrottle {
    let linesPerPeriod: Int
    let period: Duration
    private var periodStart: ContinuousClock.Instant?
    private var written = 0
    private var leftOut = 0

    init(linesPerPeriod: Int, period: Duration) {
        self.linesPerPeriod = linesPerPeriod
        self.period = period
    }

    /// Whether a line may be written now: nil to leave it out, else how many were left out before it.
    mutating func admit(at now: ContinuousClock.Instant = .now) -> Int? {
        if periodStart.map({ now - $0 >= period }) ?? true {
            periodStart = now
            written = 0
        }
        guard written < linesPerPeriod else {
            leftOut += 1
            return nil
        }
        written += 1
        defer { leftOut = 0 }
        return leftOut
    }
}

/// The pause after a failed `accept`: 50 ms, doubling up to 2 s.
struct AcceptBackoff {
    private var pause: Duration = .milliseconds(25)

    mutating func next() -> Duration {
        pause = min(pause * 2, .seconds(2))
        return pause
    }
}
