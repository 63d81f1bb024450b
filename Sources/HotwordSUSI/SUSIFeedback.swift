import Foundation

/// A thumbs up or down for an answer, as SUSI's `rating` parameter spells it.
public enum SUSIRating: String, Sendable, CaseIterable {
    case positive, negative
}

/// The skill that gave an answer, parsed from its path (`answers[0].skills[0]`) as the reference
/// clients and the server itself do: split on `/`, model, group, language and skill are parts
/// 3 to 6, the skill up to its first `.`. Only skills of the skill store
/// (`/susi_skill_data/models/…`) can be rated; the server's built-in skills
/// (`/susi_server/conf/…`) split the same way but `rateSkill` answers 404 for them.
public struct SUSISkillReference: Sendable, Equatable, CustomStringConvertible {
    public var model: String
    public var group: String
    public var language: String
    public var skill: String

    public init(model: String, group: String, language: String, skill: String) {
        self.model = model
        self.group = group
        self.language = language
        self.skill = skill
    }

    /// The skill at `path`; nil for a path of anything but a skill-store skill.
    public init?(path: String) {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 7, parts[0].isEmpty, parts[1] == "susi_skill_data", parts[2] == "models",
              let skill = parts[6].split(separator: ".", maxSplits: 1).first.map(String.init),
              !parts[3].isEmpty, !parts[4].isEmpty, !parts[5].isEmpty, !skill.isEmpty else { return nil }
        self.init(model: parts[3], group: parts[4], language: parts[5], skill: skill)
    }

    public var description: String { "\(model)/\(group)/\(language)/\(skill)" }

    var fields: [HTTPField] {
        [HTTPField("model", model), HTTPField("group", group), HTTPField("language", language), HTTPField("skill", skill)]
    }
}

/// What became of a rating.
public enum SUSIRatingOutcome: Sendable, Equatable {
    /// `rateSkill` counted it (its message); `feedbackLog` logged it too, or failed with `logError`.
    case rated(SUSISkillReference, message: String, logError: SUSIError?)
    /// The answer came from a skill that cannot be rated (`path`, nil when the answer named none);
    /// `reason` says why, for the user.
    case notRatable(path: String?, reason: String)
}

extension SUSIClient {
    /// Rates the answer `reply` to `query`, which skill `skillPath` gave, as the iOS client does:
    /// `/cms/rateSkill.json` counts the vote, then `/cms/feedbackLog.json` logs it with the query
    /// and the reply. A skill that cannot be rated is an outcome, not an error.
    public func rate(skillPath: String?, _ rating: SUSIRating, query: String, reply: String) async throws(SUSIError) -> SUSIRatingOutcome {
        guard let skillPath, !skillPath.isEmpty else {
            return .notRatable(path: nil, reason: "SUSI did not say which skill gave that answer")
        }
        guard let skill = SUSISkillReference(path: skillPath) else {
            return .notRatable(path: skillPath, reason: "it came from one of SUSI's built-in skills, which cannot be rated")
        }
        let message: String
        do {
            let response = try await send(.get(configuration.endpoint("cms/rateSkill.json"),
                                               query: skill.fields + [HTTPField("rating", rating.rawValue)],
                                               headers: configuration.headers))
            message = try SUSIValue.acceptedObject(from: response.body, url: response.url)["message"]?.string ?? "rated"
        } catch .http(.status(_, 404, _), _) {
            return .notRatable(path: skillPath, reason: "the server does not know the skill \(skill)")
        }
        var log = skill.fields + [HTTPField("rating", rating.rawValue), HTTPField("user_query", query),
                                  HTTPField("susi_reply", reply), HTTPField("device_type", configuration.deviceType)]
        if let countryName = configuration.countryName, let countryCode = configuration.countryCode {
            log += [HTTPField("country_name", countryName), HTTPField("country_code", countryCode)]
        }
        do {
            let response = try await send(.get(configuration.endpoint("cms/feedbackLog.json"), query: log,
                                               headers: configuration.headers))
            _ = try SUSIValue.acceptedObject(from: response.body, url: response.url)
            return .rated(skill, message: message, logError: nil)
        } catch .cancelled {
            throw .cancelled
        } catch {
            return .rated(skill, message: message, logError: error)
        }
    }
}
