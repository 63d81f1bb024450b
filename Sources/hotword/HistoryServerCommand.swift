import ArgumentParser
import Foundation
import HotwordSUSI

/// `hotword history server`: what the SUSI server remembers of the conversation.
struct HistoryServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "server",
        abstract: "Show what the SUSI server remembers of the conversation (/susi/memory.json: its last 5 exchanges).",
        discussion: "The account's when logged in (`hotword login`), otherwise this machine's as an anonymous user.")

    @Flag(help: "Print SUSI's replies as JSON (an array, oldest first) instead of text.")
    var json = false

    @OptionGroup var susi: SUSIOptions

    func run() async throws {
        let settings = try susi.settings()
        try await Self.show(susi.client(settings), tokenFile: settings.susiLogin.tokenFile, json: json)
    }

    /// Prints what `client`'s server remembers, as text or JSON.
    static func show(_ client: SUSIClient, tokenFile: URL, json: Bool) async throws {
        let replies: [SUSIReply]
        do {
            replies = try await client.memory(tokenFile: tokenFile)
        } catch {
            throw CommandFailure("\(error)")
        }
        if json {
            print("[" + replies.map(\.json).joined(separator: ",\n") + "]")
            return
        }
        guard !replies.isEmpty else {
            print("The server remembers nothing of this conversation.")
            return
        }
        let renderer = SUSIRenderer()
        print(replies.map { reply in
            let when = (reply.queryDate ?? reply.answerDate).map { isoTime($0) + "\n" } ?? ""
            let shown = renderer.steps(for: reply).compactMap { if case .print(let text) = $0 { text } else { nil } }
            return when + (["You: \(reply.query)"] + shown).joined(separator: "\n")
        }.joined(separator: "\n\n"))
    }
}
