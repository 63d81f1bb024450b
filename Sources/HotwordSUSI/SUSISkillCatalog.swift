import Foundation
import HotwordFolders

/// SUSI's skill groups and skill lists, kept for `maxAge` in `cacheFolder` so a voice device can
/// list them offline and without a round trip. A cached list older than that is still used when
/// the server cannot be asked; `Listing.source` says which happened.
public struct SUSISkillCatalog: Sendable {
    /// Where a listing came from.
    public enum Source: Sendable, Equatable {
        case server
        /// Cached at `fetched`, within `maxAge`.
        case cache(fetched: Date)
        /// Cached at `fetched` and used because asking the server failed with `error`.
        case staleCache(fetched: Date, error: SUSIError)
    }

    public struct Listing<Value: Sendable>: Sendable {
        public var value: Value
        public var source: Source
    }

    public let client: SUSIClient
    public let cacheFolder: URL
    public var maxAge: TimeInterval

    public init(client: SUSIClient, cacheFolder: URL, maxAge: TimeInterval = 24 * 3600) {
        self.client = client
        self.cacheFolder = cacheFolder
        self.maxAge = maxAge
    }

    /// In the cache folder: `$CACHE_DIRECTORY/susi-skills` in a systemd service, otherwise
    /// `~/.cache/hotword/susi-skills` (see `UserFolder`).
    public static func defaultCacheFolder(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        UserFolder.cache.file("susi-skills", environment: environment)
    }

    /// The group names of the `general` model.
    public func groups(now: Date = Date()) async throws(SUSIError) -> Listing<[String]> {
        try await listing("cms/getGroups.json", query: [], now: now, parse: SUSISkillParsing.groups)
    }

    /// The skills of `group` (nil: all groups) in the client's language.
    public func skills(group: String?, now: Date = Date()) async throws(SUSIError) -> Listing<[SUSISkill]> {
        let language = client.configuration.language
        return try await listing("cms/getSkillList.json",
                                 query: [HTTPField("group", group ?? "All"), HTTPField("language", language)],
                                 now: now, parse: SUSISkillParsing.skills)
    }

    private func listing<Value: Collection>(_ path: String, query: [HTTPField], now: Date,
                                parse: (Data, String) throws(SUSIError) -> Value) async throws(SUSIError) -> Listing<Value> {
        let request = HTTPRequest.get(client.configuration.endpoint(path), query: query,
                                      headers: client.configuration.headers)
        let file = cacheFile(for: request.redactedURL)
        let cached = Self.read(file)
        if let cached, now.timeIntervalSince(cached.fetched) < maxAge,
           let value = try? parse(cached.body, request.redactedURL) {
            return Listing(value: value, source: .cache(fetched: cached.fetched))
        }
        do {
            let response = try await client.send(request)
            let value = try parse(response.body, response.url)
            // Only a reply that parsed and lists something is kept: a broken one would otherwise hide
            // the server's next good one, an empty one (a group that does not exist yet) a new one.
            if !value.isEmpty {
                try? FileManager.default.createDirectory(at: cacheFolder, withIntermediateDirectories: true,
                                                         attributes: [.posixPermissions: 0o700])
                try? response.body.write(to: file, options: .atomic)
            }
            return Listing(value: value, source: .server)
        } catch .http(let error, let attempts) {
            guard let cached, let value = try? parse(cached.body, request.redactedURL) else {
                throw .http(error, attempts: attempts)
            }
            return Listing(value: value, source: .staleCache(fetched: cached.fetched, error: .http(error, attempts: attempts)))
        }
    }

    /// Every skill of the skill lists cached in `folder` in `language` (of any server and group,
    /// however old), without asking a server: what is known offline of what people ask SUSI.
    /// Files that are not skill lists or no longer parse are passed over.
    public static func cachedSkills(in folder: URL, language: String) -> [SUSISkill] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        let suffix = cacheName(for: "language=\(language)") + ".json"
        return names.sorted().filter { $0.contains(cacheName(for: "cms/getSkillList.json")) && $0.hasSuffix(suffix) }
            .flatMap { name -> [SUSISkill] in
                let file = folder.appendingPathComponent(name)
                return read(file).flatMap { try? SUSISkillParsing.skills($0.body, url: file.path) } ?? []
            }
    }

    /// One file per URL (server, endpoint, group and language), named so it stays a single path component.
    private func cacheFile(for url: String) -> URL {
        cacheFolder.appendingPathComponent(Self.cacheName(for: url) + ".json")
    }

    private static func cacheName(for url: String) -> String {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-_."))
        return String(url.unicodeScalars.map { allowed.contains($0) ? Character($0) : "_" })
    }

    private static func read(_ file: URL) -> (body: Data, fetched: Date)? {
        guard let body = try? Data(contentsOf: file),
              let fetched = try? FileManager.default.attributesOfItem(atPath: file.path)[.modificationDate] as? Date
        else { return nil }
        return (body, fetched)
    }
}
