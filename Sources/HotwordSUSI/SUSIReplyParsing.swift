import Foundation

extension SUSIReply {
    /// Reads a `/susi/chat.json` body. Tolerant of missing and oddly typed fields; throws only
    /// when the body is not a SUSI reply at all, or has no answer. `url` is for error messages.
    public init(json body: Data, url: String) throws(SUSIError) {
        try self.init(root: try SUSIValue.object(from: body, url: url), json: String(decoding: body, as: UTF8.self), url: url)
    }

    /// A reply already read as JSON (one of `/susi/memory.json`'s cognitions, say); `json` is its text.
    init(root: SUSIValue, json: String, url: String) throws(SUSIError) {
        let query = root["query"]?.string ?? ""
        guard let answers = root["answers"]?.array else {
            throw .malformedReply(url: url, reason: "no \"answers\" list")
        }
        guard let answer = answers.first else { throw .noAnswer(query: query) }
        guard answer.members != nil else {
            throw .malformedReply(url: url, reason: "the first answer is not a JSON object")
        }
        let data = answer["data"]?.array ?? []
        self.init(
            query: query,
            queryDate: root["query_date"]?.string.flatMap(SUSIReply.date),
            answerDate: root["answer_date"]?.string.flatMap(SUSIReply.date),
            answerTime: root["answer_time"]?.int.map { .milliseconds($0) },
            clientID: root["client_id"]?.string,
            identity: root["session"]?["identity"].flatMap { identity in
                identity["name"]?.string.map {
                    SUSIIdentity(type: identity["type"]?.string ?? "", name: $0,
                                 anonymous: identity["anonymous"]?.bool ?? true)
                }
            },
            actions: (answer["actions"]?.array ?? []).map { SUSIAction(json: $0, query: query, data: data) },
            data: data,
            totalCount: answer["metadata"]?["count"]?.int,
            skills: (answer["skills"]?.array ?? []).compactMap(\.string),
            json: json)
    }

    /// ISO 8601 as SUSI writes it (`2018-05-14T13:22:18.473Z`), with or without fractions.
    static func date(_ text: String) -> Date? {
        (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text))
            ?? (try? Date.ISO8601FormatStyle().parse(text))
    }
}

extension SUSIAction {
    /// One element of an answer's `actions`; `query` and `data` fill in what an action leaves out.
    init(json: SUSIValue, query: String, data: [SUSIValue]) {
        guard let type = json["type"]?.string else {
            self = .incomplete(type: "", missingField: "type")
            return
        }
        func text(_ key: String) -> String? {
            json[key]?.string.flatMap { $0.isEmpty ? nil : $0 }
        }
        /// A row count where -1 (or anything negative, or nothing) means all.
        func count() -> Int? {
            json["count"]?.int.flatMap { $0 < 0 ? nil : $0 }
        }
        func require<T>(_ value: T?, _ field: String, _ make: (T) -> SUSIAction) -> SUSIAction {
            value.map(make) ?? .incomplete(type: type, missingField: field)
        }
        switch type {
        case "answer":
            self = require(json["expression"]?.string, "expression") { expression in
                .answer(SUSIAnswer(expression: expression, language: text("language"),
                                   planDelay: json["plan_delay"]?.int.map { .milliseconds($0) },
                                   planDate: text("plan_date").flatMap(SUSIReply.date)))
            }
        case "table":
            let listed = (json["columns"]?.members ?? []).map {
                SUSITable.Column(key: $0.key, header: $0.value.string ?? $0.key)
            }
            // Without a column list, show every member of the first row under its own name.
            let columns = listed.isEmpty
                ? (data.first?.members ?? []).map { SUSITable.Column(key: $0.key, header: $0.key) }
                : listed
            self = columns.isEmpty ? .incomplete(type: type, missingField: "columns")
                : .table(SUSITable(columns: columns, count: count()))
        case "rss":
            self = .rss(SUSIFeed(titleKey: text("title") ?? "title",
                                 descriptionKey: text("description") ?? "description",
                                 linkKey: text("link") ?? "link", count: count()))
        case "websearch":
            self = .webSearch(query: text("query") ?? query, count: count())
        case "anchor":
            self = require(text("link"), "link") { .anchor(link: $0, text: text("text") ?? $0) }
        case "map":
            self = require(json["latitude"]?.double, "latitude") { latitude in
                require(json["longitude"]?.double, "longitude") {
                    .map(latitude: latitude, longitude: $0, zoom: json["zoom"]?.int)
                }
            }
        case "audio_play", "video_play":
            self = require(text("identifier"), "identifier") {
                let media = SUSIMedia(identifier: $0, identifierType: text("identifier_type") ?? "url")
                return type == "audio_play" ? .audioPlay(media) : .videoPlay(media)
            }
        case "audio_volume":
            self = require(json["volume"]?.double, "volume") { .audioVolume(percent: Int(min(max($0, 0), 100).rounded())) }
        case "timer_set":
            self = require(json["time"]?.double, "time") { time in
                // Unix time in seconds; a value this large can only be milliseconds (year 5138+ otherwise).
                .timerSet(Date(timeIntervalSince1970: time > 1e11 ? time / 1000 : time))
            }
        case "timer_reset":
            self = .timerReset
        case "piechart":
            self = require(text("key"), "key") { key in
                require(text("value"), "value") {
                    .pieChart(SUSIPieChart(total: json["total"]?.double, key: key, value: $0, unit: text("unit")))
                }
            }
        case "image_show":
            self = require(text("url"), "url") { .imageShow(url: $0) }
        default:
            self = SUSIPlaybackControl(rawValue: type).map(SUSIAction.playback) ?? .unknown(type: type)
        }
    }
}
