import Foundation
import HotwordAudio
import HotwordCore
import HotwordModels

/// Where an enrollment keeps its material, so that running it again adds takes instead of
/// starting over: `takes/` (the user's recordings of the wake word, trimmed), `background/`
/// (the room, recorded while the user was quiet), `synthetic/` (`hotword synthesize` output),
/// `noise/` (generated noise) and `reversed/` (the takes backwards, as negatives).
public struct EnrollmentFolder: Sendable {
    public let root: URL

    public init(root: URL) {
        self.root = root
    }

    public var takes: URL { root.appendingPathComponent("takes") }
    public var background: URL { root.appendingPathComponent("background") }
    public var synthetic: URL { root.appendingPathComponent("synthetic") }
    /// Noise made for training (`GeneratedNoise`), written afresh by every enrollment.
    public var generatedNoise: URL { root.appendingPathComponent("noise") }
    /// The trained takes played backwards: negatives in the user's own voice, room and
    /// microphone, so the model cannot take "a real voice" for the wake word (every other
    /// negative is synthetic). Written afresh by every enrollment.
    public var reversedTakes: URL { root.appendingPathComponent("reversed") }

    /// `$XDG_DATA_HOME/hotword/enroll/<slug>` (default `~/.local/share/…`).
    public static func defaultRoot(keyword: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        InstalledFiles.userData("enroll", environment: environment).appendingPathComponent(slug(keyword))
    }

    /// A file-name form of the keyword: "Hey Computer!" → "hey_computer".
    public static func slug(_ keyword: String) -> String {
        let words = keyword.lowercased().split { !($0.isLetter || $0.isNumber) }
        return words.isEmpty ? "keyword" : words.joined(separator: "_")
    }

    /// The saved takes, sorted by name.
    public func takeFiles() throws(EnrollmentError) -> [URL] {
        try audioFiles(in: takes)
    }

    /// The background recordings, sorted by name.
    public func backgroundFiles() throws(EnrollmentError) -> [URL] {
        try audioFiles(in: background)
    }

    /// How long the speech lasts in each saved take, seconds: what a new take is compared with.
    public func takeSpeechSeconds() throws(EnrollmentError) -> [Double] {
        var seconds: [Double] = []
        for url in try takeFiles() {
            let samples = try Self.read(url)
            if let bounds = SpeechBounds.find(in: samples) { seconds.append(Double(bounds.length) / Double(AudioFormat.sampleRate)) }
        }
        return seconds
    }

    /// One file offered as a take, and what became of it.
    public struct ImportedFile: Sendable {
        public var source: URL
        /// The checked take, or why it was rejected.
        public var result: Result<Take, TakeProblem>
        /// Where it was saved (nil when rejected).
        public var saved: URL?
    }

    /// Checks recordings of the wake word (each compared with the saved takes and the other
    /// files) and saves the good ones as `takes/<file name>.wav`, so importing the same files
    /// again replaces them. A file that cannot be read stops the import before anything is saved.
    public func importTakes(_ files: [URL], rules: TakeRules) throws(EnrollmentError) -> [ImportedFile] {
        var recordings: [[Float]] = []
        for file in files { recordings.append(try Self.read(file)) }
        var seen: [String: Int] = [:]
        let names = files.map { file -> String in
            let stem = file.deletingPathExtension().lastPathComponent
            seen[stem, default: 0] += 1
            return seen[stem]! == 1 ? stem : "\(stem)-\(seen[stem]!)"
        }
        let keptNames = Set(names)
        // Saved takes that these files will replace are not compared with them.
        var saved: [Double] = []
        for url in try takeFiles() where !keptNames.contains(url.deletingPathExtension().lastPathComponent) {
            if let bounds = SpeechBounds.find(in: try Self.read(url)) { saved.append(Double(bounds.length) / Double(AudioFormat.sampleRate)) }
        }
        // First alone, then each against the saved takes and the other files that passed alone.
        let alone = recordings.map { samples in Result { () throws(TakeProblem) in try rules.check(samples) } }
        var imported: [ImportedFile] = []
        for index in files.indices {
            let others = saved + alone.indices.filter { $0 != index }.compactMap { try? alone[$0].get().speechSeconds }
            let result = alone[index].flatMap { _ in Result { () throws(TakeProblem) in try rules.check(recordings[index], against: others) } }
            var file = ImportedFile(source: files[index], result: result, saved: nil)
            if case .success(let take) = result { file.saved = try save(take, name: names[index]) }
            imported.append(file)
        }
        return imported
    }

    private static func read(_ url: URL) throws(EnrollmentError) -> [Float] {
        do {
            return try AudioFileReader.read(url).samples
        } catch {
            throw .unreadableTake(path: url.path, reason: error.description)
        }
    }

    /// Saves a take as `takes/<name>.wav`, or as the next `take-NNN.wav` when `name` is nil.
    @discardableResult
    public func save(_ take: Take, name: String? = nil) throws(EnrollmentError) -> URL {
        let file = if let name { name } else { try nextName(in: takes, prefix: "take") }
        return try write(take.samples, in: takes, name: file)
    }

    /// Saves a recording of the room as the next `background/room-NNN.wav`.
    @discardableResult
    public func saveBackground(_ samples: [Float]) throws(EnrollmentError) -> URL {
        try write(samples, in: background, name: nextName(in: background, prefix: "room"))
    }

    /// Saves generated noise as `noise/<name>.wav`, scaled to a 0.5 peak.
    @discardableResult
    public func saveGeneratedNoise(_ samples: [Float], name: String) throws(EnrollmentError) -> URL {
        let peak = samples.reduce(Float(0)) { max($0, abs($1)) }
        return try write(peak > 0 ? samples.map { $0 * 0.5 / peak } : samples, in: generatedNoise, name: name)
    }

    /// Writes the takes at `urls` backwards into `reversed/`, replacing what was there.
    public func saveReversed(_ urls: [URL]) throws(EnrollmentError) {
        try? FileManager.default.removeItem(at: reversedTakes)
        for url in urls {
            _ = try write(try Self.read(url).reversed(), in: reversedTakes, name: url.deletingPathExtension().lastPathComponent)
        }
    }

    private func write(_ samples: [Float], in folder: URL, name: String) throws(EnrollmentError) -> URL {
        let url = folder.appendingPathComponent(name + ".wav")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw .folder(path: folder.path, reason: (error as NSError).localizedDescription)
        }
        do {
            try AudioFileWriter.writeWAV(samples, to: url, sampleRate: AudioFormat.sampleRate)
        } catch {
            throw .folder(path: folder.path, reason: error.description)
        }
        return url
    }

    /// `prefix-NNN`, numbered one past the highest existing number.
    private func nextName(in folder: URL, prefix: String) throws(EnrollmentError) -> String {
        let numbers = try audioFiles(in: folder).compactMap { url -> Int? in
            let stem = url.deletingPathExtension().lastPathComponent
            guard stem.hasPrefix(prefix + "-") else { return nil }
            return Int(stem.dropFirst(prefix.count + 1))
        }
        return prefix + "-" + String(format: "%03d", (numbers.max() ?? 0) + 1)
    }

    private func audioFiles(in folder: URL) throws(EnrollmentError) -> [URL] {
        guard FileManager.default.fileExists(atPath: folder.path) else { return [] }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        } catch {
            throw .folder(path: folder.path, reason: (error as NSError).localizedDescription)
        }
        return names.filter { !$0.hasPrefix(".") && AudioCorpus.audioExtensions.contains(($0 as NSString).pathExtension.lowercased()) }
            .sorted().map { folder.appendingPathComponent($0) }
    }
}
