import Foundation

/// The settings SUSI keeps for a user (`/aaa/listUserSettings.json`): every value a string.
public typealias SUSIUserSettings = [String: String]

extension SUSIClient {
    /// The logged-in user's settings (the token in `tokenFile`).
    public func userSettings(tokenFile: URL) async throws(SUSIError) -> SUSIUserSettings {
        let response = try await sendAsUser("aaa/listUserSettings.json", [], tokenFile: tokenFile)
        let reply = try SUSIValue.acceptedObject(from: response.body, url: response.url)
        guard let members = reply["settings"]?.members else {
            throw .malformedReply(url: response.url, reason: "expected \"settings\", an object")
        }
        var settings: SUSIUserSettings = [:]
        for member in members { settings[member.key] = member.value.string ?? member.value.text }
        return settings
    }

    /// Stores `settings` for the logged-in user with `/aaa/changeUserSettings.json`, one named
    /// parameter each (the server ignores names it does not know). Returns the server's message.
    public func storeUserSettings(_ settings: SUSIUserSettings, tokenFile: URL) async throws(SUSIError) -> String {
        let fields = settings.sorted { $0.key < $1.key }.map { HTTPField($0.key, $0.value) }
        let response = try await sendAsUser("aaa/changeUserSettings.json", fields, tokenFile: tokenFile)
        return try SUSIValue.acceptedObject(from: response.body, url: response.url)["message"]?.string ?? "settings stored"
    }

    /// What the server remembers of the conversation (`/susi/memory.json`, at most its last 5
    /// exchanges), oldest first: the logged-in user's when `tokenFile` holds a token, otherwise
    /// this machine's as an anonymous user.
    public func memory(tokenFile: URL?) async throws(SUSIError) -> [SUSIReply] {
        let fields = [HTTPField("cognitions", "10")]
        let token = tokenFile.flatMap(SUSIToken.load)
        let request = token.map { tokenRequest("susi/memory.json", fields, token: $0) }
            ?? HTTPRequest.get(configuration.endpoint("susi/memory.json"), query: fields, headers: configuration.headers)
        let response = try await send(request)
        let root = try SUSIValue.object(from: response.body, url: response.url)
        guard let cognitions = root["cognitions"]?.array else {
            throw .malformedReply(url: response.url, reason: "expected \"cognitions\", a list")
        }
        var replies: [SUSIReply] = []
        for cognition in cognitions.reversed() {
            // A cognition without answers says nothing worth showing.
            if let reply = try? SUSIReply(root: cognition, json: cognition.text, url: response.url) { replies.append(reply) }
        }
        return replies
    }
}
