import ArgumentParser
import Foundation
import HotwordAssistant
import HotwordSUSI

/// `hotword skills [GROUP | --all]`: what SUSI can do, from the server or the day-old cache.
struct SkillsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "skills",
        abstract: "List SUSI.AI's skill groups, or the skills of a group with example questions.",
        discussion: """
            Without arguments lists the skill groups; with a GROUP (or --all) its skills with their \
            description, author and example questions. Lists are cached for a day in \
            ~/.cache/hotword/susi-skills ($CACHE_DIRECTORY for the service) and used from there when \
            the server cannot be reached; an empty list is not kept. A GROUP the server does not have \
            is a wrong command line (status 64).
            """)

    @Argument(help: "A skill group, as `hotword skills` lists them.")
    var group: String?

    @Flag(help: "List the skills of every group.")
    var all = false

    @Option(help: ArgumentHelp("Only skills whose name, description or an example question contains TEXT (any case).", valueName: "TEXT"))
    var search: String?

    @Flag(help: "Print JSON instead of text.")
    var json = false

    @OptionGroup var susi: SUSIOptions

    func validate() throws {
        if all, group != nil { throw ValidationError("Give a GROUP or --all, not both.") }
    }

    func run() async throws {
        let settings = try susi.settings()
        let catalog = SUSISkillCatalog(client: susi.client(settings),
                                       cacheFolder: SUSISkillCatalog.defaultCacheFolder())
        do {
            if group == nil, !all, search == nil {
                let groups = try await catalog.groups()
                report(groups.source)
                print(json ? try Self.jsonText(groups.value) : groups.value.joined(separator: "\n"))
            } else {
                let listing = try await catalog.skills(group: group)
                report(listing.source)
                if let group, listing.value.isEmpty {
                    let groups = try await catalog.groups().value
                    throw ValidationError("no skill group '\(group)' on \(settings.susi.server.absoluteString); it has \(groups.joined(separator: ", "))")
                }
                let skills = search.map { text in listing.value.filter { $0.matches(text) } } ?? listing.value
                if json {
                    print(try Self.jsonText(skills))
                } else {
                    print(skills.isEmpty ? "No skills match." : skills.map(Self.text).joined(separator: "\n\n"))
                }
            }
        } catch let error as SUSIError {
            throw CommandFailure("\(error)")
        }
    }

    /// Says on standard error when the list is an old one because the server failed.
    private func report(_ source: SUSISkillCatalog.Source) {
        guard case .staleCache(let fetched, let error) = source else { return }
        FileHandle.standardError.write(Data("(\(error); showing the list cached \(isoTime(fetched)))\n".utf8))
    }

    static func text(_ skill: SUSISkill) -> String {
        var lines = ["\(skill.name) [\(skill.group)/\(skill.tag)]" + (skill.author.isEmpty ? "" : " by \(skill.author)")]
        if !skill.description.isEmpty { lines.append("  \(skill.description)") }
        lines += skill.examples.map { "  “\($0)”" }
        return lines.joined(separator: "\n")
    }

    static func jsonText(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
