import Foundation

/// A skill as `/cms/getSkillList.json` describes it.
public struct SUSISkill: Sendable, Equatable, Codable {
    /// The file name without `.txt`: the `skill` parameter of the other skill endpoints.
    public var tag: String
    /// `::name` of the skill file; the tag when the server has none (null for unknown skills).
    public var name: String
    public var group: String
    public var description: String
    public var author: String
    public var examples: [String]

    public init(tag: String, name: String, group: String, description: String, author: String, examples: [String]) {
        self.tag = tag
        self.name = name
        self.group = group
        self.description = description
        self.author = author
        self.examples = examples
    }

    /// Whether `text` occurs, ignoring case and diacritics, in the name, tag, description or an example.
    public func matches(_ text: String) -> Bool {
        ([name, tag, description] + examples).contains {
            $0.range(of: text, options: [.caseInsensitive, .diacriticInsensitive]) != nil
        }
    }
}

/// Reading the skill endpoints' replies; no I/O, so the cache and the server go through the same checks.
public enum SUSISkillParsing {
    /// `{accepted, groups: [names…]}` of `/cms/getGroups.json`, sorted (the server's order is
    /// that of its directory listing, i.e. none).
    public static func groups(_ body: Data, url: String) throws(SUSIError) -> [String] {
        let root = try SUSIValue.acceptedObject(from: body, url: url)
        guard let groups = root["groups"]?.array else {
            throw .malformedReply(url: url, reason: "expected \"groups\", a list of group names")
        }
        return groups.compactMap(\.string).sorted { $0.localizedCaseInsensitiveCompare($1) == .orderedAscending }
    }

    /// `{accepted, skills: {tag: metadata…}}` of `/cms/getSkillList.json`, sorted by name.
    public static func skills(_ body: Data, url: String) throws(SUSIError) -> [SUSISkill] {
        let root = try SUSIValue.acceptedObject(from: body, url: url)
        // An object keyed by skill tag; only the paged `filteredData` is a list.
        guard let members = root["skills"]?.members else {
            throw .malformedReply(url: url, reason: "expected \"skills\", an object keyed by skill tag")
        }
        return members.compactMap { member -> SUSISkill? in
            guard member.value.members != nil else { return nil }
            let metadata = member.value
            let tag = metadata["skill_tag"]?.string ?? member.key
            return SUSISkill(tag: tag, name: metadata["skill_name"]?.string ?? tag,
                             group: metadata["group"]?.string ?? "",
                             description: metadata["descriptions"]?.string ?? "",
                             author: metadata["author"]?.string ?? "",
                             examples: metadata["examples"]?.array?.compactMap(\.string) ?? [])
        }.sorted { $0.name.localizedCaseInsensitiveCompare($1.name) == .orderedAscending }
    }
}

extension SUSISkill {
    /// Up to `count` example questions, each from a different skill, drawn at random from the
    /// skills that have examples (what "what can you do" says).
    public static func suggestions(from skills: [SUSISkill], count: Int,
                                   using generator: inout some RandomNumberGenerator) -> [String] {
        skills.filter { !$0.examples.isEmpty }.shuffled(using: &generator).prefix(count)
            .compactMap { $0.examples.randomElement(using: &generator) }
    }
}
