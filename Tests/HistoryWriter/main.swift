import Foundation
import HotwordHistory

// hotword-history-writer FILE: records exchanges into the history database FILE as fast as it
// can and prints each one's id once its transaction has committed, until it is killed (the
// history tests kill it mid-write) or has run for 60 s. Not shipped.
guard CommandLine.arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: hotword-history-writer FILE\n".utf8))
    exit(64)
}
let store: HistoryStore
do {
    // No pruning: every committed exchange must still be there afterwards.
    store = try HistoryStore(file: URL(fileURLWithPath: CommandLine.arguments[1]), limits: HistoryLimits(keepDays: 0, maxRows: 0))
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(1)
}
// Long enough that a transaction spans several pages, so a kill lands inside one now and then.
let answer = String(repeating: "It is sunny and warm in Berlin today. ", count: 200)
let started = Date()
var number = 0
while Date().timeIntervalSince(started) < 60 {
    number += 1
    do {
        let recorded = try store.record(Exchange(time: Date(), source: .text, question: "question \(number)",
                                                 answer: answer, origin: .susi))
        FileHandle.standardOutput.write(Data("\(recorded.id ?? -1)\n".utf8))
    } catch {
        FileHandle.standardError.write(Data("\(error)\n".utf8))
        exit(1)
    }
}
