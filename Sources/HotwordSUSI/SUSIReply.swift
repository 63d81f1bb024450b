import Foundation

/// SUSI's answer to one query: the first of the server's alternative answers.
public struct SUSIReply: Sendable, Equatable {
    /// The query as the server understood it.
    public var query: String
    public var queryDate: Date?
    public var answerDate: Date?
    /// How long the server took (its `answer_time`).
    public var answerTime: Duration?
    public var clientID: String?
    /// Who the server thinks asked: an anonymous host or a logged-in user.
    public var identity: SUSIIdentity?
    /// Everything to perform, in order.
    public var actions: [SUSIAction]
    /// The answer's data rows (JSON objects); `table`, `rss` and `piechart` actions name keys in them.
    public var data: [SUSIValue]
    /// How many rows the server found (`metadata.count`); may be more than it sent.
    public var totalCount: Int?
    /// The skill files that produced the answer.
    public var skills: [String]
    /// The body exactly as received.
    public var json: String

    public init(query: String, queryDate: Date? = nil, answerDate: Date? = nil, answerTime: Duration? = nil,
                clientID: String? = nil, identity: SUSIIdentity? = nil, actions: [SUSIAction],
                data: [SUSIValue] = [], totalCount: Int? = nil, skills: [String] = [], json: String = "") {
        self.query = query
        self.queryDate = queryDate
        self.answerDate = answerDate
        self.answerTime = answerTime
        self.clientID = clientID
        self.identity = identity
        self.actions = actions
        self.data = data
        self.totalCount = totalCount
        self.skills = skills
        self.json = json
    }

    /// The first answer's `actions` as JSON text, as the server sent them ("[]" when it sent none).
    public var actionsJSON: String {
        let root = try? SUSIValue.parse(Data(json.utf8))
        return root?["answers"]?.array?.first?["actions"]?.text ?? "[]"
    }

    /// The expressions of the `answer` actions, what SUSI said (for a rating's `susi_reply`).
    public var answerText: String {
        Self.answerText(of: actions)
    }

    /// `answerText` of actions kept as JSON text (`actionsJSON`); nil when that is not a list.
    public static func answerText(actionsJSON: String) -> String? {
        guard let actions = (try? SUSIValue.parse(Data(actionsJSON.utf8)))?.array else { return nil }
        return answerText(of: actions.map { SUSIAction(json: $0, query: "", data: []) })
    }

    private static func answerText(of actions: [SUSIAction]) -> String {
        actions.compactMap { if case .answer(let answer) = $0 { answer.expression } else { nil } }.joined(separator: " ")
    }

    /// False when the answer has no `answer` action (nothing SUSI meant to be said as such).
    public var hasAnswerAction: Bool {
        actions.contains { if case .answer = $0 { true } else { false } }
    }
}

public struct SUSIIdentity: Sendable, Equatable {
    /// `host` for anonymous use, `email` when logged in.
    public var type: String
    public var name: String
    public var anonymous: Bool

    public init(type: String, name: String, anonymous: Bool) {
        self.type = type
        self.name = name
        self.anonymous = anonymous
    }
}

/// One thing SUSI wants done. Unknown types and known types missing a required field are kept
/// (`unknown`, `incomplete`) so a client can mention them; they are never an error.
public enum SUSIAction: Sendable, Equatable {
    case answer(SUSIAnswer)
    case table(SUSITable)
    case rss(SUSIFeed)
    /// A web search SUSI suggests; `count` results wanted.
    case webSearch(query: String, count: Int?)
    case anchor(link: String, text: String)
    case map(latitude: Double, longitude: Double, zoom: Int?)
    case audioPlay(SUSIMedia)
    case videoPlay(SUSIMedia)
    /// Set the output volume to this percentage (0–100).
    case audioVolume(percent: Int)
    case timerSet(Date)
    case timerReset
    case playback(SUSIPlaybackControl)
    case pieChart(SUSIPieChart)
    case imageShow(url: String)
    /// A type this client does not know.
    case unknown(type: String)
    /// A known type without a field it needs (or an action that is not a JSON object).
    case incomplete(type: String, missingField: String)
}

public struct SUSIAnswer: Sendable, Equatable {
    public var expression: String
    /// ISO 639-1 code, when SUSI says which language the expression is in.
    public var language: String?
    /// For a planned answer: how long after the reply it is due.
    public var planDelay: Duration?
    /// For a planned answer: when it is due (server clock).
    public var planDate: Date?

    public init(expression: String, language: String? = nil, planDelay: Duration? = nil, planDate: Date? = nil) {
        self.expression = expression
        self.language = language
        self.planDelay = planDelay
        self.planDate = planDate
    }

    public var isPlanned: Bool { planDelay != nil || planDate != nil }
}

public struct SUSITable: Sendable, Equatable {
    public struct Column: Sendable, Equatable {
        /// The data row key.
        public var key: String
        /// What to show above the column.
        public var header: String

        public init(key: String, header: String) {
            self.key = key
            self.header = header
        }
    }

    /// In the order the server listed them.
    public var columns: [Column]
    /// How many data rows to show; nil for all.
    public var count: Int?

    public init(columns: [Column], count: Int?) {
        self.columns = columns
        self.count = count
    }
}

/// Data rows read as news items: each key names a data row member.
public struct SUSIFeed: Sendable, Equatable {
    public var titleKey: String
    public var descriptionKey: String?
    public var linkKey: String?
    /// How many items to show; nil for all.
    public var count: Int?

    public init(titleKey: String, descriptionKey: String?, linkKey: String?, count: Int?) {
        self.titleKey = titleKey
        self.descriptionKey = descriptionKey
        self.linkKey = linkKey
        self.count = count
    }
}

public struct SUSIMedia: Sendable, Equatable {
    public var identifier: String
    /// `url`, `youtube` or `soundcloud`.
    public var identifierType: String

    public init(identifier: String, identifierType: String) {
        self.identifier = identifier
        self.identifierType = identifierType
    }

    /// A link a person can open: YouTube identifiers are video ids, the others URLs.
    public var link: String {
        identifierType == "youtube" && !identifier.contains("/")
            ? "https://www.youtube.com/watch?v=\(identifier)" : identifier
    }
}

public enum SUSIPlaybackControl: String, Sendable, Equatable, CaseIterable {
    case stop, pause, resume, restart, next, previous, shuffle
}

/// Data rows read as slices: `key` and `value` name data row members.
public struct SUSIPieChart: Sendable, Equatable {
    public var total: Double?
    public var key: String
    public var value: String
    public var unit: String?

    public init(total: Double?, key: String, value: String, unit: String?) {
        self.total = total
        self.key = key
        self.value = value
        self.unit = unit
    }
}
