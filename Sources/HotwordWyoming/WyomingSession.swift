import HotwordCore

/// An event a connection sent that cannot be acted on; the connection is closed.
public enum WyomingSessionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A required field is missing or has the wrong type: `audio-chunk` without `rate`, say.
    case invalidField(event: String, field: String, value: String)
    case audio(PCMConversionError)

    public var description: String {
        switch self {
        case .invalidField(let event, let field, let value): "\(event): \(field) \(value) is missing or invalid"
        case .audio(let error): "\(error)"
        }
    }
}

/// One Wyoming connection's wake-word detection: events in, events out, no I/O. Owns its own
/// `Detector` (built from the shared, read-only catalog) so connections share no mutable state.
///
/// `describe` → `info`; `ping` → `pong`; `detect` chooses models (by name; none given = all);
/// `audio-start` / `audio-chunk` / `audio-stop` stream audio in any format, answered by
/// `detection` (model name, timestamp in the client's stream, ms) and, at `audio-stop` after a
/// stream without any, `not-detected`. Unknown event types are ignored, as the specification says.
/// A keyword with a second stage (the catalog's `checks`) is reported once the second of audio
/// after it has come and the check agrees (or at `audio-stop`, judged on the audio there is).
public final class WyomingSession {
    private let catalog: WakeWordCatalog
    private var selected: [WakeWordEntry]
    private var detector: Detector?
    /// The selected keywords' second stages, holding detections back; nil when none has one.
    private var checked: CheckedDetections?
    /// Model name of each keyword of the selected models.
    private var modelOfKeyword: [String: String] = [:]
    private var stream: Stream?
    private var samples: [Float] = []

    /// The audio stream under way: its format and where it starts in the client's time.
    private struct Stream {
        var converter: PCMConverter
        /// The client's timestamp (ms) of the stream's first sample.
        var startMilliseconds: Int?
        var detections = 0
    }

    public init(catalog: WakeWordCatalog) {
        self.catalog = catalog
        selected = catalog.entries
    }

    /// The names of the models this connection listens for.
    public var listeningFor: [String] { selected.map(\.name) }

    /// The events to send back for `event`.
    public func handle(_ event: WyomingEvent) throws(WyomingSessionError) -> [WyomingEvent] {
        switch event.type {
        case "describe":
            return [WyomingEvent(type: "info", data: catalog.info)]
        case "ping":
            return [WyomingEvent(type: "pong", data: ["text": event.data["text"] ?? .null])]
        case "detect":
            return try detect(event)
        case "audio-start":
            // A new stream without `audio-stop` ends the previous one; its tail may still hold a detection.
            let (tail, _) = try endStream()
            try startStream(try format(of: event), timestamp: event.data["timestamp"]?.integer)
            return tail
        case "audio-chunk":
            return try chunk(event)
        case "audio-stop":
            return try stop()
        default:
            return []
        }
    }

    private func detect(_ event: WyomingEvent) throws(WyomingSessionError) -> [WyomingEvent] {
        let names: [String]
        switch event.data["names"] {
        case nil, .null?: names = []
        case .array(let values)? where values.allSatisfy({ $0.string != nil }): names = values.compactMap(\.string)
        case let other?: throw .invalidField(event: "detect", field: "names", value: other.excerpt)
        }
        let chosen = names.isEmpty ? catalog.entries : catalog.entries.filter { entry in names.contains(where: entry.answers) }
        guard !chosen.isEmpty else {
            return [WyomingEvent(type: "error", data: [
                "text": .string("no wake word named \(WyomingProtocolError.excerpt(names.joined(separator: ", "))); this server has \(catalog.entries.map(\.name).joined(separator: ", "))"),
                "code": "unknown-wake-word",
            ])]
        }
        if chosen.map(\.name) != selected.map(\.name) {
            selected = chosen
            detector = nil
        }
        return []
    }

    private func chunk(_ event: WyomingEvent) throws(WyomingSessionError) -> [WyomingEvent] {
        let format = try format(of: event)
        // Satellites may stream chunks without `audio-start`; a new format starts a new converter.
        if stream == nil {
            try startStream(format, timestamp: event.data["timestamp"]?.integer)
        } else if stream!.converter.format != format {
            samples.removeAll(keepingCapacity: true)
            do { try stream!.converter.flush(appendingTo: &samples) } catch { throw .audio(error) }
            let heard = listen(to: samples)
            stream!.converter = try converter(format)
            samples.removeAll(keepingCapacity: true)
            return heard + (try convertAndDetect(event.payload))
        }
        if stream!.startMilliseconds == nil { stream!.startMilliseconds = event.data["timestamp"]?.integer }
        return try convertAndDetect(event.payload)
    }

    private func convertAndDetect(_ payload: [UInt8]) throws(WyomingSessionError) -> [WyomingEvent] {
        samples.removeAll(keepingCapacity: true)
        do { try stream!.converter.convert(payload, appendingTo: &samples) } catch { throw .audio(error) }
        return listen(to: samples)
    }

    private func stop() throws(WyomingSessionError) -> [WyomingEvent] {
        let (tail, detected) = try endStream()
        return detected ? tail : tail + [WyomingEvent(type: "not-detected")]
    }

    /// Ends the stream under way, if any: the resampler's tail goes through the detector.
    /// Returns the detections in that tail and whether the stream had any at all.
    private func endStream() throws(WyomingSessionError) -> (replies: [WyomingEvent], detected: Bool) {
        guard stream != nil else { return ([], false) }
        samples.removeAll(keepingCapacity: true)
        do { try stream!.converter.flush(appendingTo: &samples) } catch { throw .audio(error) }
        var replies = listen(to: samples)
        if let checked { replies += report(checked.finish().filter(\.kept).map(\.detection)) }
        let detected = stream!.detections > 0
        stream = nil
        return (replies, detected)
    }

    private func startStream(_ format: PCMFormat, timestamp: Int?) throws(WyomingSessionError) {
        // Each stream starts afresh: its times count from its own first sample.
        detector?.reset()
        stream = Stream(converter: try converter(format), startMilliseconds: timestamp)
    }

    /// The detector over the selected models, built at the first audio after `detect` changed them.
    private func currentDetector() -> Detector {
        if let detector { return detector }
        let made = catalog.makeDetector(selected)
        modelOfKeyword = [:]
        for entry in selected {
            for keyword in entry.model.keywords { modelOfKeyword[keyword] = entry.name }
        }
        detector = made
        let checks = catalog.checks.filter { modelOfKeyword[$0.key] != nil }
        checked = checks.isEmpty ? nil : CheckedDetections(checks: checks)
        return made
    }

    private func listen(to samples: [Float]) -> [WyomingEvent] {
        guard !samples.isEmpty, stream != nil else { return [] }
        let found = currentDetector().process(samples)
        return report(checked.map { $0.append(samples, detections: found).filter(\.kept).map(\.detection) } ?? found)
    }

    private func report(_ found: [Detection]) -> [WyomingEvent] {
        stream!.detections += found.count
        let start = stream!.startMilliseconds ?? 0
        return found.map { detection in
            WyomingEvent(type: "detection", data: [
                "name": .string(modelOfKeyword[detection.keyword] ?? detection.keyword),
                "timestamp": .number(Double(start) + (detection.time * 1000).rounded()),
                "speaker": .null,
            ])
        }
    }

    private func converter(_ format: PCMFormat) throws(WyomingSessionError) -> PCMConverter {
        do { return try PCMConverter(format: format) } catch { throw .audio(error) }
    }

    private func format(of event: WyomingEvent) throws(WyomingSessionError) -> PCMFormat {
        func field(_ name: String) throws(WyomingSessionError) -> Int {
            guard let value = event.data[name]?.integer else {
                throw .invalidField(event: event.type, field: name, value: event.data[name]?.excerpt ?? "(none)")
            }
            return value
        }
        return PCMFormat(rate: try field("rate"), width: try field("width"), channels: try field("channels"))
    }
}
