import Foundation

/// Audio files found under folders, in a stable order, each assigned to a split.
public struct AudioCorpus: Sendable {
    public struct Clip: Sendable, Hashable {
        public var path: String
        /// The folder name and speaker (or file) the clip is grouped by when splitting.
        public var group: String
        public var split: DataSplit.Part
    }

    public var clips: [Clip]

    public static let audioExtensions: Set<String> = ["wav", "flac", "ogg", "oga", "aiff", "aif", "au"]

    /// Every audio file below `folders` (recursively), sorted by path, each split by `split`.
    /// An entry may also be a file, or a pattern for files in one folder (`noise/blanket_*`:
    /// `*` and `?` in the last component only), so one source can be set apart from the others
    /// in a folder; its files are grouped for the split among themselves, like a folder of their own.
    public init(folders: [String], split: DataSplit) throws(TrainingError) {
        var paths: [String] = []
        for folder in folders {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) else {
                let matches = Self.files(matching: folder)
                guard !matches.isEmpty else { throw .missingFolder(folder) }
                paths += matches
                continue
            }
            guard isDirectory.boolValue else {
                paths.append(folder)
                continue
            }
            guard let walker = FileManager.default.enumerator(atPath: folder) else { throw .missingFolder(folder) }
            for case let relative as String in walker
            where Self.audioExtensions.contains((relative as NSString).pathExtension.lowercased()) {
                paths.append((folder as NSString).appendingPathComponent(relative))
            }
        }
        let sorted = paths.sorted()
        clips = zip(sorted, DataSplit.groups(of: sorted)).map { path, group in
            Clip(path: path, group: group, split: split.part(of: group))
        }
    }

    public func clips(in part: DataSplit.Part) -> [String] { clips.filter { $0.split == part }.map(\.path) }

    /// The audio files in `pattern`'s folder whose names match its last component (fnmatch), or
    /// none when it has no wildcard.
    static func files(matching pattern: String) -> [String] {
        let folder = (pattern as NSString).deletingLastPathComponent, name = (pattern as NSString).lastPathComponent
        guard name.contains(where: { $0 == "*" || $0 == "?" }),
              let entries = try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder) else { return [] }
        return entries.filter { fnmatch(name, $0, 0) == 0 && audioExtensions.contains(($0 as NSString).pathExtension.lowercased()) }
            .map { (folder as NSString).appendingPathComponent($0) }
    }
}

/// A deterministic split into train, validation and test parts by group (a speaker where the
/// file name says it, else the file), so no speaker is in two parts and every machine agrees —
/// except in a folder that is mostly one voice, which is split by file.
public struct DataSplit: Sendable, Hashable, Codable {
    public enum Part: String, Sendable, Hashable, Codable, CaseIterable { case train, validation, test }

    public var validationFraction: Double
    public var testFraction: Double

    public init(validationFraction: Double = 0.1, testFraction: Double = 0.2) {
        self.validationFraction = validationFraction
        self.testFraction = testFraction
    }

    /// The group keys of `paths`: `group(of:)`, except in a folder where one speaker has more
    /// than half the clips (asterisk_en: 354 of 554 prompts are one voice's), whose clips are
    /// grouped by file. Kept whole, that voice would land in a single part and make it one
    /// telephone voice's prompts; a voice in every part is the lesser harm.
    public static func groups(of paths: [String]) -> [String] {
        let folders = paths.map { URL(fileURLWithPath: $0).deletingLastPathComponent().path }
        let speakers = paths.map(group(of:))
        var speakerCounts: [String: [String: Int]] = [:]
        for (folder, speaker) in zip(folders, speakers) { speakerCounts[folder, default: [:]][speaker, default: 0] += 1 }
        let singleVoiceFolders = Set(speakerCounts.filter { _, counts in
            let largest = counts.values.max() ?? 0
            return largest > 1 && 2 * largest > counts.values.reduce(0, +)
        }.keys)
        return paths.indices.map { singleVoiceFolders.contains(folders[$0]) ? fileGroup(of: paths[$0]) : speakers[$0] }
    }

    /// `folder/stem`: the group of a clip split on its own.
    static func fileGroup(of path: String) -> String {
        let url = URL(fileURLWithPath: path)
        return "\(url.deletingLastPathComponent().lastPathComponent)/\(url.deletingPathExtension().lastPathComponent)"
    }

    /// The group key: `folder/speaker` where the file name starts with a speaker id followed by
    /// '_' (SPEAKER0044_000440005 → SPEAKER0044; en_US_f_Allison_added → en_US_f_Allison),
    /// else `folder/stem`.
    public static func group(of path: String) -> String {
        let url = URL(fileURLWithPath: path)
        let stem = url.deletingPathExtension().lastPathComponent
        guard let speakerEnd = stem.lastIndex(of: "_") else { return fileGroup(of: path) }
        return "\(url.deletingLastPathComponent().lastPathComponent)/\(stem[..<speakerEnd])"
    }

    /// test if hash(group) < testFraction, validation if below test + validation, else train;
    /// hash = FNV-1a (64 bit) of the group key's UTF-8, mixed by MurmurHash3's finaliser and
    /// scaled to [0, 1).
    public func part(of group: String) -> Part {
        let unit = StableHash.unitInterval(of: group)
        if unit < testFraction { return .test }
        if unit < testFraction + validationFraction { return .validation }
        return .train
    }

    public var summary: String {
        "split by group (speaker prefix before the last '_' in the file name, else the file; by file in a folder where one speaker has over half the clips) with FNV-1a-64 + fmix64 of 'folder/group': test < \(testFraction), validation < \(testFraction + validationFraction), train otherwise"
    }
}
