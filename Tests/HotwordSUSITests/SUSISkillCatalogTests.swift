import Foundation
import HotwordSUSI
import HotwordTestSupport
import Testing

@Suite("SUSI skill catalog against the SUSI test server")
struct SUSISkillCatalogTests {
    private func catalog(_ server: SUSITestServer, _ folder: URL, language: String = "en") -> SUSISkillCatalog {
        SUSISkillCatalog(client: makeClient(server) { $0.language = language }, cacheFolder: folder)
    }

    @Test func groupsAreListedSortedAndThenServedFromTheCache() async throws {
        let server = try SUSITestServer()
        defer { server.shutdown() }
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = try await catalog(server, folder).groups()
        #expect(first.value == ["Food and Drink", "Knowledge"])
        #expect(first.source == .server)
        let second = try await catalog(server, folder).groups()
        #expect(second.value == first.value)
        guard case .cache = second.source else { Issue.record("expected the cache, got \(second.source)"); return }
        #expect(server.requests.filter { $0.path == "/cms/getGroups.json" }.count == 1)
    }

    @Test func skillsAreReadFromTheObjectKeyedByTag() async throws {
        let server = try SUSITestServer()
        defer { server.shutdown() }
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let all = try await catalog(server, folder, language: "de").skills(group: nil).value
        #expect(all.map(\.tag) == ["aboutsusi", "cocktails", "recipes", "wikipedia"])
        // A null skill_name falls back to the tag, null examples to none.
        #expect(all[2] == SUSISkill(tag: "recipes", name: "recipes", group: "Food and Drink",
                                    description: "Finds a recipe for a dish.", author: "Chef Bot", examples: []))
        #expect(all[0].examples == ["Who are you?", "What is SUSI?"])
        let request = try #require(server.requests.last)
        #expect(request.query("group") == "All")
        #expect(request.query("language") == "de")
        let knowledge = try await catalog(server, folder).skills(group: "Knowledge").value
        #expect(knowledge.map(\.tag) == ["aboutsusi", "wikipedia"])
        #expect(all.filter { $0.matches("LIGHTHOUSE") }.map(\.tag) == ["wikipedia"])
        #expect(all.filter { $0.matches("recipe") }.map(\.tag) == ["recipes"])
    }

    @Test func cachedSkillListsAreReadWithoutAServerInTheirLanguageOnly() async throws {
        let server = try SUSITestServer()
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(SUSISkillCatalog.cachedSkills(in: folder, language: "en").isEmpty)
        _ = try await catalog(server, folder).groups()
        _ = try await catalog(server, folder).skills(group: "Knowledge")
        _ = try await catalog(server, folder, language: "de").skills(group: nil)
        server.shutdown()
        // The group list is not a skill list; the German list is not English.
        #expect(SUSISkillCatalog.cachedSkills(in: folder, language: "en").map(\.tag) == ["aboutsusi", "wikipedia"])
        #expect(SUSISkillCatalog.cachedSkills(in: folder, language: "de").count == 4)
    }

    @Test func anOldCacheIsUsedWhenTheServerIsUnreachable() async throws {
        let server = try SUSITestServer()
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try await catalog(server, folder).groups()
        server.shutdown()
        var stale = catalog(server, folder)
        stale.maxAge = 0
        let offline = try await stale.groups()
        #expect(offline.value == ["Food and Drink", "Knowledge"])
        guard case .staleCache(_, .http(let error, _)) = offline.source else {
            Issue.record("expected the stale cache, got \(offline.source)")
            return
        }
        #expect(error.isConnectionFailure)
    }

    @Test func errorsNameTheEndpoint() async throws {
        let server = try SUSITestServer()
        defer { server.shutdown() }
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        server.catalogFailure = .htmlError(status: 500)
        await #expect(throws: SUSIError.self) { try await catalog(server, folder).groups() }
        server.catalogFailure = .raw(status: 200, contentType: "application/json",
                                     body: #"{"accepted": false, "message": "Bad service call."}"#)
        do {
            _ = try await catalog(server, folder).skills(group: "Knowledge")
            Issue.record("expected notAccepted")
        } catch {
            #expect(error == .notAccepted(url: "\(server.baseURL.absoluteString)/cms/getSkillList.json?group=Knowledge&language=en",
                                          message: "Bad service call."))
        }
        server.catalogFailure = .raw(status: 200, contentType: "application/json", body: #"{"accepted": true, "skills": []}"#)
        do {
            _ = try await catalog(server, folder).skills(group: nil)
            Issue.record("expected malformedReply")
        } catch {
            #expect(error.description.contains("getSkillList.json"))
            #expect(error.description.contains("expected \"skills\", an object keyed by skill tag"))
        }
        // Nothing broken was cached: the store answers again once the server is fixed.
        server.catalogFailure = nil
        #expect(try await catalog(server, folder).skills(group: nil).source == .server)
    }
}
