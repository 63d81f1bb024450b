import Foundation

/// A SUSI.AI-compatible server for tests, on 127.0.0.1: `/susi/chat.json` answers with scripted
/// replies in SUSI's real JSON shapes (and `/susi/memory.json` gives back the last 5),
/// `/aaa/login.json` logs in one account (and answers `checkLogin` and `logout`),
/// `/cms/getGroups.json` and `/cms/getSkillList.json` list a small skill store, or answer
/// `catalogFailure` when set; `/cms/rateSkill.json` and `/cms/feedbackLog.json` take ratings of
/// its skills, `/aaa/listUserSettings.json` and `/aaa/changeUserSettings.json` keep the
/// account's settings. Every request is recorded. Call `shutdown()` when done (it also stops by itself; see `TestHTTPServer`).
public final class SUSITestServer: Sendable {
    /// What `/susi/chat.json` answers.
    public indirect enum Reply: Sendable {
        /// One `answer` action.
        case answer(String)
        /// One `answer` action from the skill at `skill` (a path as in `answers[0].skills`).
        case answerFrom(String, skill: String)
        /// The currency table from the API notes: an answer, then a `table` action over 3 rows.
        case table
        /// An answer, then an `rss` action over 4 news items.
        case rss
        /// An immediate answer, then `expression` planned `delayMilliseconds` later.
        case planned(String, delayMilliseconds: Int)
        /// `"answers": []`.
        case emptyAnswers
        /// A first answer with a `websearch` action and no `answer` action.
        case noAnswerAction
        /// Every action type SUSI knows, one each, plus one unknown type.
        case everyAction
        /// A reply whose first answer holds exactly these action objects (JSON text).
        case actions([String])
        /// An HTML error page with this status, as susi_server's Jetty sends.
        case htmlError(status: Int)
        /// HTTP 503 "your request frequency is too high".
        case rateLimited
        /// `reply`, held back for `delay`.
        case slow(Duration, Reply)
        /// Broken JSON with a JSON content type.
        case garbage
        /// Anything else, e.g. a 200 HTML page from a captive portal.
        case raw(status: Int, contentType: String, body: String)
    }

    public struct Account: Sendable {
        public var login: String
        public var password: String
        public var token: String
        public var validSeconds: Int

        public init(login: String, password: String, token: String, validSeconds: Int = 604_800) {
            self.login = login
            self.password = password
            self.token = token
            self.validSeconds = validSeconds
        }
    }

    private let http: TestHTTPServer
    private let script: Script

    /// - Parameters:
    ///   - account: the one account `/aaa/login.json` accepts.
    ///   - fallback: the chat reply when no scripted reply is queued.
    ///   - port: 0 for any free port (see `TestHTTPServer.init(port:)`).
    public init(account: Account? = nil, fallback: Reply = .answer("Hello from the test server."), port: UInt16 = 0,
                maxConnections: Int = 100, lifetime: Duration = .seconds(120)) throws {
        let script = Script(fallback: fallback)
        self.script = script
        http = try TestHTTPServer(port: port, maxConnections: maxConnections, lifetime: lifetime) { request in
            switch request.path {
            case "/susi/chat.json": script.remember(SUSITestServer.respond(to: request, with: script.next()))
            case "/susi/memory.json": SUSITestServer.memory(script.memory)
            case "/aaa/login.json": SUSITestServer.login(request, account: account)
            case "/aaa/listUserSettings.json", "/aaa/changeUserSettings.json":
                SUSITestServer.userSettings(request, account: account, script: script)
            case "/cms/rateSkill.json", "/cms/feedbackLog.json": SUSITestServer.rating(request)
            case "/aaa/changepassword.json": SUSITestServer.changePassword(request, account: account)
            case "/cms/getGroups.json", "/cms/getSkillList.json":
                script.catalogFailure.map { SUSITestServer.respond(to: request, with: $0) } ?? SUSITestServer.catalog(request)
            default: SUSITestServer.htmlPage(status: 404, message: "Not Found")
            }
        }
    }

    public var baseURL: URL { http.baseURL }
    public var port: UInt16 { http.port }

    /// Queues replies for the next chat requests, in order.
    public func enqueue(_ replies: Reply...) { script.enqueue(replies) }

    /// What the skill endpoints answer instead of the skill store, e.g. `.htmlError(status: 500)`; nil: the store.
    public var catalogFailure: Reply? {
        get { script.catalogFailure }
        set { script.catalogFailure = newValue }
    }

    /// Every request received so far, in arrival order.
    public var requests: [TestHTTPRequest] { http.requests }
    public var chatRequests: [TestHTTPRequest] { requests.filter { $0.path == "/susi/chat.json" } }
    public var loginRequests: [TestHTTPRequest] { requests.filter { $0.path == "/aaa/login.json" } }
    public func requests(to path: String) -> [TestHTTPRequest] { requests.filter { $0.path == path } }

    /// The account's settings as `/aaa/listUserSettings.json` gives them (strings, as SUSI keeps them).
    public var userSettings: [String: String] {
        get { script.settings }
        set { script.settings = newValue }
    }

    /// Keys `/aaa/changeUserSettings.json` ignores besides those it never knew, as an older
    /// susi_server's shorter list would.
    public var unknownSettings: Set<String> {
        get { script.unknownSettings }
        set { script.unknownSettings = newValue }
    }

    /// The path of a skill of the store, as SUSI names the skill that answered (`answers[0].skills[0]`).
    public static func skillPath(group: String = "Knowledge", tag: String = "aboutsusi") -> String {
        "/susi_skill_data/models/general/\(group)/en/\(tag).txt"
    }

    public func shutdown() { http.shutdown() }

    // MARK: - Responses

    private static func respond(to request: TestHTTPRequest, with reply: Reply) -> TestHTTPResponse {
        let query = request.query("q") ?? request.formFields.first { $0.name == "q" }?.value ?? ""
        let identity = request.query("access_token") == nil
            ? #"{"type": "host", "name": "127.0.0.1_4f3c2a1b", "anonymous": true}"#
            : #"{"type": "email", "name": "user@example.org", "anonymous": false}"#
        switch reply {
        case .answer(let expression):
            return chat(query, identity, [answer(data: "[]", count: 1, actions: [answerAction(expression)])])
        case .answerFrom(let expression, let skill):
            return chat(query, identity, [answer(data: "[]", count: 1, actions: [answerAction(expression)], skill: skill)])
        case .table:
            let data = """
                [{"currency": "EUR/USD", "rate": "1.09302"}, {"currency": "USD/JPY", "rate": "113.326"},
                 {"currency": "GBP/USD", "rate": "1.27564"}, {"currency": "USD/CHF", "rate": "0.96105"}]
                """
            return chat(query, identity, [answer(data: data, count: 59, actions: [
                answerAction("Here is a currency rate table:"),
                #"{"type": "table", "count": 3, "columns": {"currency": "Valuta", "rate": "Quota"}}"#,
            ])])
        case .rss:
            let data = (1...4).map { n in
                #"{"title": "Headline \#(n)", "description": "Story number \#(n).", "link": "https://news.example.org/\#(n)"}"#
            }
            return chat(query, identity, [answer(data: "[" + data.joined(separator: ", ") + "]", count: 4, actions: [
                answerAction("Here are the news:"),
                #"{"type": "rss", "title": "title", "description": "description", "link": "link", "count": -1}"#,
            ])])
        case .planned(let expression, let delay):
            let planDate = iso8601(Date().addingTimeInterval(Double(delay) / 1000))
            return chat(query, identity, [answer(data: "[]", count: 1, actions: [
                answerAction("OK, I will remind you."),
                #"{"type": "answer", "expression": \#(json(expression)), "plan_delay": \#(delay), "plan_date": "\#(planDate)"}"#,
            ])])
        case .emptyAnswers:
            return chat(query, identity, [])
        case .noAnswerAction:
            return chat(query, identity, [answer(data: "[]", count: 1, actions: [
                #"{"type": "websearch", "query": \#(json(query)), "count": 3}"#,
            ])])
        case .everyAction:
            return chat(query, identity, [answer(data: """
                [{"ingredient": "flour", "percent": 60}, {"ingredient": "water", "percent": 40}]
                """, count: 2, actions: everyAction)])
        case .actions(let actions):
            return chat(query, identity, [answer(data: "[]", count: 1, actions: actions)])
        case .htmlError(let status):
            return htmlPage(status: status, message: "java.lang.IndexOutOfBoundsException: Index: 0, Size: 0")
        case .rateLimited:
            return htmlPage(status: 503, message: "your request frequency is too high")
        case .slow(let delay, let reply):
            var response = respond(to: request, with: reply)
            response.delay = delay
            return response
        case .garbage:
            return TestHTTPResponse(status: 200, contentType: "application/json; charset=utf-8",
                                    body: #"{"query": "x", "answers": [{"actions": [{"type": "answ"#)
        case .raw(let status, let contentType, let body):
            return TestHTTPResponse(status: status, contentType: contentType, body: body)
        }
    }

    private static let everyAction: [String] = [
        #"{"type": "answer", "expression": "Hallo!", "language": "de"}"#,
        #"{"type": "table", "columns": {"ingredient": "Ingredient", "percent": "Share"}, "count": -1}"#,
        #"{"type": "rss", "title": "ingredient", "description": "percent", "link": "ingredient", "count": 1}"#,
        #"{"type": "websearch", "query": "swift concurrency", "count": 3}"#,
        #"{"type": "anchor", "link": "https://susi.ai", "text": "Visit SUSI"}"#,
        #"{"type": "map", "latitude": "52.52", "longitude": 13.405, "zoom": 13}"#,
        #"{"type": "audio_play", "identifier": "dQw4w9WgXcQ", "identifier_type": "youtube"}"#,
        #"{"type": "video_play", "identifier": "https://example.org/clip.mp4", "identifier_type": "url"}"#,
        #"{"type": "audio_volume", "volume": 70}"#,
        #"{"type": "timer_set", "time": 1700000000}"#,
        #"{"type": "timer_reset"}"#,
        #"{"type": "stop"}"#, #"{"type": "pause"}"#, #"{"type": "resume"}"#, #"{"type": "restart"}"#,
        #"{"type": "next"}"#, #"{"type": "previous"}"#, #"{"type": "shuffle"}"#,
        #"{"type": "piechart", "total": 100, "key": "ingredient", "value": "percent", "unit": "%"}"#,
        #"{"type": "image_show", "url": "https://example.org/cat.jpg"}"#,
        #"{"type": "hologram", "intensity": 11}"#,
    ]

    private static func chat(_ query: String, _ identity: String, _ answers: [String]) -> TestHTTPResponse {
        let now = Date()
        let body = """
            {"query": \(json(query)), "count": 1, "client_id": "aG9zdF8xMjcuMC4wLjFfNGYzYzJhMWI=",
             "query_date": "\(iso8601(now))", "answers": [\(answers.joined(separator: ", "))],
             "answer_date": "\(iso8601(now.addingTimeInterval(0.004)))", "answer_time": 4,
             "language": "en", "session": {"identity": \(identity)}}
            """
        return jsonResponse(body)
    }

    private static func answer(data: String, count: Int, actions: [String],
                               skill: String = "/susi_server/conf/susi/en_0090_fail.json") -> String {
        """
        {"data": \(data), "metadata": {"count": \(count)},
         "actions": [\(actions.joined(separator: ", "))],
         "skills": [\(json(skill))], "persona": {}}
        """
    }

    /// As susi_server's `/susi/memory.json`: the last cognitions, newest first, each shaped as a chat reply.
    private static func memory(_ cognitions: [String]) -> TestHTTPResponse {
        jsonResponse(#"{"cognitions": [\#(cognitions.reversed().joined(separator: ", "))], "cognitions_remaining": 0, "#
                     + #""session": {"identity": {"type": "host", "name": "127.0.0.1_4f3c2a1b", "anonymous": true}}}"#)
    }

    /// As RateSkillService and FeedbackLogService: anonymous, defaults general/Knowledge/en, a
    /// skill the store does not have is 404 "Skill does not exist.", no `skill` a 500 (their
    /// NPE), and for `rateSkill` a rating other than positive or negative a 500 too.
    private static func rating(_ request: TestHTTPRequest) -> TestHTTPResponse {
        guard let skill = request.query("skill") else { return htmlPage(status: 500, message: "java.lang.NullPointerException") }
        let model = request.query("model") ?? "general", group = request.query("group") ?? "Knowledge"
        let language = request.query("language") ?? "en"
        guard model == "general", language == "en", skillStore.contains(where: { $0.group == group && $0.tag == skill }) else {
            return htmlPage(status: 404, message: "Skill does not exist.")
        }
        if request.path == "/cms/feedbackLog.json" { return jsonResponse(#"{"accepted": true, "message": "Feedback log updated"}"#) }
        guard ["positive", "negative"].contains(request.query("rating") ?? "") else {
            return htmlPage(status: 500, message: "org.json.JSONException")
        }
        return jsonResponse(#"{"accepted": true, "message": "Skill ratings updated"}"#)
    }

    /// The keys ChangeUserSettings.java accepts; it ignores every other parameter.
    public static let settingKeys: Set<String> = [
        "server", "enterAsSend", "micInput", "speechOutput", "speechOutputAlways", "speechRate", "speechPitch", "ttsLanguage",
        "userName", "prefLanguage", "timeZone", "countryCode", "countryDialCode", "phoneNo", "checked", "serverUrl", "theme",
        "backgroundImage", "messageBackgroundImage", "customThemeValue", "avatarType",
    ]

    /// As ListUserSettings and ChangeUserSettings: USER calls (401 without the account's token, as
    /// for an expired one, which the server takes for anonymous); a change without any known key
    /// is 400.
    private static func userSettings(_ request: TestHTTPRequest, account: Account?, script: Script) -> TestHTTPResponse {
        guard let account, request.query("access_token") == account.token else {
            return htmlPage(status: 401, message: "Base user role not sufficient. Your base user role is 'ANONYMOUS', your user role is 'anonymous'")
        }
        if request.path == "/aaa/listUserSettings.json" {
            let members = script.settings.sorted { $0.key < $1.key }.map { "\(json($0.key)): \(json($0.value))" }
            return jsonResponse(#"{"settings": {\#(members.joined(separator: ", "))}, "accepted": true, "message": "Success: Showing user settings"}"#)
        }
        let known = request.query.filter { settingKeys.contains($0.name) && !script.unknownSettings.contains($0.name) }
        guard !known.isEmpty else { return htmlPage(status: 400, message: "Bad Service call, key or value parameters not provided") }
        for field in known { script.settings[field.name] = field.value }
        return jsonResponse(#"{"accepted": true, "message": "You successfully changed settings of your account!"}"#)
    }

    private static func answerAction(_ expression: String) -> String {
        #"{"type": "answer", "language": "en", "expression": \#(json(expression))}"#
    }

    /// The skill store: two groups, four skills with the metadata fields susi_server sends
    /// (`skills` keyed by skill tag; one skill with `skill_name` and `examples` null).
    public static let skillStore: [(group: String, tag: String, name: String?, author: String, description: String, examples: [String]?)] = [
        ("Knowledge", "aboutsusi", "About SUSI", "FOSSASIA", "Tells you who SUSI is.", ["Who are you?", "What is SUSI?"]),
        ("Knowledge", "wikipedia", "Wikipedia", "Jane Doe", "Looks things up on Wikipedia.", ["What is a lighthouse?"]),
        ("Food and Drink", "recipes", nil, "Chef Bot", "Finds a recipe for a dish.", nil),
        ("Food and Drink", "cocktails", "Cocktails", "Chef Bot", "Mixes drinks.", ["How do I make a mojito?"]),
    ]

    private static func catalog(_ request: TestHTTPRequest) -> TestHTTPResponse {
        let language = request.query("language") ?? "en"
        let body: String
        if request.path == "/cms/getGroups.json" {
            let groups = Set(skillStore.map(\.group)).map(json)
            body = #"{"accepted": true, "groups": [\#(groups.joined(separator: ", "))], "message": "Success: Fetched group list"}"#
        } else {
            let group = request.query("group") ?? "All"
            let skills = skillStore.filter { group == "All" || $0.group == group }.map { skill in
                """
                \(json(skill.tag)): {"model": "general", "group": \(json(skill.group)), "language": \(json(language)),
                 "skill_name": \(skill.name.map(json) ?? "null"), "skill_tag": \(json(skill.tag)),
                 "descriptions": \(json(skill.description)), "author": \(json(skill.author)), "image": "images/\(skill.tag).png",
                 "examples": \(skill.examples.map { "[" + $0.map(json).joined(separator: ", ") + "]" } ?? "null"),
                 "dynamic_content": false, "staffPick": false, "systemSkill": false, "usage_count": 3,
                 "skill_rating": {"positive": "2", "negative": "0", "feedback_count": 1, "bookmark_count": 0,
                   "stars": {"one_star": 0, "two_star": 0, "three_star": 0, "four_star": 1, "five_star": 1, "avg_star": 4.5, "total_star": 2}}}
                """
            }
            body = """
                {"accepted": true, "message": "Success: Fetched skill list", "model": "general", "group": \(json(group)),
                 "language": \(json(language)), "skills": {\(skills.joined(separator: ",\n"))},
                 "session": {"identity": {"type": "host", "name": "127.0.0.1_4f3c2a1b", "anonymous": true}}}
                """
        }
        return jsonResponse(body)
    }

    /// As susi_server's LoginService: `logout` needs a token (401 without) and only ends the HTTP
    /// session; `checkLogin` with an unknown or expired token is anonymous, so `loggedIn: false`;
    /// an unknown user is 401 and a wrong password 422.
    private static func login(_ request: TestHTTPRequest, account: Account?) -> TestHTTPResponse {
        let token = request.query("access_token")
        if request.query("logout") == "true" {
            guard token != nil else { return htmlPage(status: 401, message: "Unauthorized") }
            return jsonResponse(#"{"accepted": true, "message": "Logout successful"}"#)
        }
        if request.query("checkLogin") == "true" {
            let loggedIn = token != nil && token == account?.token
            return jsonResponse(#"{"loggedIn": \#(loggedIn), "accepted": \#(loggedIn), "message": "\#(loggedIn ? "You are logged in as \(account!.login)" : "Not logged in")"}"#)
        }
        guard let account, request.query("login") == account.login else { return htmlPage(status: 401, message: "Invalid credentials") }
        guard request.query("password") == account.password, request.query("type") == "access-token"
        else { return htmlPage(status: 422, message: "Invalid credentials") }
        let body = """
            {"accepted": true, "valid_seconds": \(account.validSeconds), "access_token": \(json(account.token)),
             "message": "You are logged in as \(account.login)",
             "session": {"identity": {"type": "email", "name": \(json(account.login)), "anonymous": false}}}
            """
        return jsonResponse(body)
    }

    /// As susi_server's PasswordChangeService with the captcha off: a USER call (401 without the
    /// account's token), 500 for an unknown e-mail, 422 for a wrong current password, a soft
    /// failure when nothing changes. (The account keeps its password: tests change it once.)
    private static func changePassword(_ request: TestHTTPRequest, account: Account?) -> TestHTTPResponse {
        guard let account, request.query("access_token") == account.token else {
            return htmlPage(status: 401, message: "Base user role not sufficient. Your base user role is 'ANONYMOUS', your user role is 'anonymous'")
        }
        guard request.query("changepassword") == account.login else {
            return htmlPage(status: 500, message: "java.lang.NullPointerException")
        }
        guard request.query("password") == account.password else { return htmlPage(status: 422, message: "Invalid credentials") }
        if request.query("newpassword") == account.password {
            return jsonResponse(#"{"accepted": false, "message": "Your current password matches new password."}"#)
        }
        return jsonResponse(#"{"accepted": true, "message": "Your password has been changed!"}"#)
    }

    private static func jsonResponse(_ body: String) -> TestHTTPResponse {
        TestHTTPResponse(status: 200, contentType: "application/json; charset=utf-8", body: body)
    }

    /// A Jetty-style error page, as susi_server sends for 4xx/5xx.
    private static func htmlPage(status: Int, message: String) -> TestHTTPResponse {
        let body = """
            <html>
            <head>
            <meta http-equiv="Content-Type" content="text/html;charset=utf-8"/>
            <title>Error \(status) \(message)</title>
            </head>
            <body><h2>HTTP ERROR \(status)</h2>
            <p>Problem accessing /susi/chat.json. Reason:
            <pre>    \(message)</pre></p><hr><a href="http://eclipse.org/jetty">Powered by Jetty://</a><hr/>
            </body>
            </html>
            """
        return TestHTTPResponse(status: status, contentType: "text/html;charset=utf-8", body: body)
    }

    private static func json(_ text: String) -> String {
        let data = try? JSONSerialization.data(withJSONObject: text, options: [.fragmentsAllowed])
        return data.map { String(decoding: $0, as: UTF8.self) } ?? "\"\""
    }

    private static func iso8601(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// The queue of scripted replies, shared with the server's connection threads.
    private final class Script: @unchecked Sendable {  // @unchecked: guarded by `lock`
        private let lock = NSLock()
        private var queue: [Reply] = []
        private let fallback: Reply
        private var failure: Reply?
        private var cognitions: [String] = []
        private var storedSettings: [String: String] = [:]
        private var ignored: Set<String> = []

        var unknownSettings: Set<String> {
            get { lock.withLock { ignored } }
            set { lock.withLock { ignored = newValue } }
        }

        /// The bodies of the last 5 chat replies, oldest first (the server's short-term memory).
        var memory: [String] { lock.withLock { cognitions } }

        var settings: [String: String] {
            get { lock.withLock { storedSettings } }
            set { lock.withLock { storedSettings = newValue } }
        }

        /// Keeps a chat reply's body for `/susi/memory.json` when it is one; returns the reply.
        func remember(_ response: TestHTTPResponse) -> TestHTTPResponse {
            if response.status == 200, (try? JSONSerialization.jsonObject(with: response.body)) is [String: Any] {
                lock.withLock { cognitions = Array((cognitions + [String(decoding: response.body, as: UTF8.self)]).suffix(5)) }
            }
            return response
        }

        var catalogFailure: Reply? {
            get { lock.withLock { failure } }
            set { lock.withLock { failure = newValue } }
        }

        init(fallback: Reply) { self.fallback = fallback }

        func enqueue(_ replies: [Reply]) { lock.withLock { queue += replies } }

        func next() -> Reply {
            lock.withLock { queue.isEmpty ? fallback : queue.removeFirst() }
        }
    }
}
