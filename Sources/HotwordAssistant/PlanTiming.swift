import Foundation
import HotwordHistory

/// When a planned answer found in the history at start is said. One still to come is said at
/// its time; one that fell due while hotword was not running is said at once, saying when it
/// was due, if it is at most `lateLimitMinutes` late (`[history] late_limit_min`), and
/// otherwise dropped (and logged): an hour-old "the tea is ready" helps nobody.
enum PlanTiming: Equatable {
    case due(in: Duration)
    case late
    case dropped(minutesLate: Int)

    init(of plan: PlannedAnswer, now: Date, lateLimitMinutes: Int) {
        let late = now.timeIntervalSince(plan.due)
        if late <= 0 {
            self = .due(in: .milliseconds(Int(-late * 1000)))
        } else if late <= Double(lateLimitMinutes) * 60 {
            self = .late
        } else {
            self = .dropped(minutesLate: Int(late / 60))
        }
    }
}
