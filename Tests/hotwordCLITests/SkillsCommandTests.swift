import Foundation
import HotwordTestSupport
import Testing

/// A configuration file whose SUSI token (and so the skill cache) lives in `folder`.
func susiConfig(in folder: URL, server: SUSITestServer, extra: String = "") throws -> String {
    let file = folder.appendingPathComponent("hotword.toml")
    try """
        [susi]
        server = "\(server.baseURL.absoluteString)"
        token_file = "\(folder.appendingPathComponent("state/susi-token.json").path)"
        \(extra)
        """.write(to: file, atomically: true, encoding: .utf8)
    return file.path
}

@Suite("hotword skills")
struct SkillsCommandTests {
    @Test func listsGroupsThenSkillsWithExamples() async throws {
        let server = try SUSITestServer()
        defer { server.shutdown() }
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = try susiConfig(in: folder, server: server)
        let groups = try await HotwordBinary.run(["skills", "--config", config])
        #expect(groups.status == 0)
        #expect(groups.stdout == "Food and Drink\nKnowledge\n")
        let knowledge = try await HotwordBinary.run(["skills", "Knowledge", "--config", config])
        #expect(knowledge.stdout == """
            About SUSI [Knowledge/aboutsusi] by FOSSASIA
              Tells you who SUSI is.
              “Who are you?”
              “What is SUSI?”

            Wikipedia [Knowledge/wikipedia] by Jane Doe
              Looks things up on Wikipedia.
              “What is a lighthouse?”

            """)
        let search = try await HotwordBinary.run(["skills", "--search", "lighthouse", "--json", "--config", config])
        let found = try JSONSerialization.jsonObject(with: Data(search.stdout.utf8)) as? [[String: Any]]
        #expect(found?.map { $0["tag"] as? String } == ["wikipedia"])
        #expect(server.requests.last?.query("group") == "All")
    }

    /// A group the server does not have is named, with those it has, and no empty list is cached
    /// for a day; a search without matches says so.
    @Test func anUnknownGroupIsNamedAndNotCached() async throws {
        let server = try SUSITestServer()
        defer { server.shutdown() }
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = try susiConfig(in: folder, server: server)
        let cache = ["XDG_CACHE_HOME": folder.appendingPathComponent("cache").path]
        let unknown = try await HotwordBinary.run(["skills", "NoSuchGroup", "--config", config], environment: cache)
        #expect(unknown.status == 64)
        #expect(unknown.stderr.hasPrefix("Error: no skill group 'NoSuchGroup' on \(server.baseURL.absoluteString); it has "), "\(unknown.stderr)")
        #expect(unknown.stderr.contains("Knowledge") && unknown.stdout.isEmpty)
        let cached = (try? FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("cache/hotword/susi-skills").path)) ?? []
        #expect(!cached.contains { $0.contains("NoSuchGroup") }, "\(cached)")
        let nothing = try await HotwordBinary.run(["skills", "--all", "--search", "xylophone", "--config", config], environment: cache)
        #expect(nothing.status == 0 && nothing.stdout == "No skills match.\n")
    }

    @Test func theServerOptionWinsAndTheCacheServesOffline() async throws {
        let server = try SUSITestServer()
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let unused = try SUSITestServer()
        let config = try susiConfig(in: folder, server: unused)
        unused.shutdown()
        // The lists are cached in the cache folder ($XDG_CACHE_HOME/hotword), whatever the token file.
        let cache = ["XDG_CACHE_HOME": folder.appendingPathComponent("cache").path]
        let online = try await HotwordBinary.run(["skills", "--all", "--config", config, "--server", server.baseURL.absoluteString],
                                                 environment: cache)
        #expect(online.status == 0)
        #expect(online.stdout.contains("recipes [Food and Drink/recipes] by Chef Bot"))
        let cached = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("cache/hotword/susi-skills").path)
        #expect(cached.count == 1)
        server.shutdown()
        // Within the day the cache answers without asking; an unreachable server is not noticed.
        let offline = try await HotwordBinary.run(["skills", "--all", "--config", config, "--server", server.baseURL.absoluteString], environment: cache)
        #expect(offline.stdout == online.stdout)
        #expect(offline.stderr == "")
        // An older list is still shown when the server cannot be reached, and that is said.
        let file = folder.appendingPathComponent("cache/hotword/susi-skills/\(cached[0])")
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-2 * 86_400)], ofItemAtPath: file.path)
        let stale = try await HotwordBinary.run(["skills", "--all", "--config", config, "--server", server.baseURL.absoluteString], environment: cache)
        #expect(stale.status == 0)
        #expect(stale.stdout == online.stdout)
        #expect(stale.stderr.contains("SUSI server unreachable"))
        #expect(stale.stderr.contains("showing the list cached"))
        // A list never fetched is a failure naming the server.
        let groups = try await HotwordBinary.run(["skills", "--config", config, "--server", server.baseURL.absoluteString], environment: cache)
        #expect(groups.status == 1)
        #expect(groups.stderr.contains("SUSI server unreachable"))
        #expect(groups.stderr.contains("/cms/getGroups.json"))
    }
}
