import Foundation
import HotwordAudio

/// Unpacks a verified archive into `NAME/ROLE/` as its layout says: into a scratch folder
/// first, renamed into place only when complete, so an interrupted or failed unpack (a full
/// disk) never leaves a corpus that looks fetched.
enum CorpusUnpacker {
    /// Files written per role; `progress` gets the number kept so far.
    static func unpack(_ archive: URL, as entry: CorpusEntry, into store: CorpusStore,
                       progress: (Int) -> Void = { _ in }) throws(CorpusError) -> [CorpusRole: Int] {
        let scratch = store.unpacking(entry.name)
        try? FileManager.default.removeItem(at: scratch)
        var finished = false
        defer { if !finished { try? FileManager.default.removeItem(at: scratch) } }
        for role in entry.layout.roles {
            try createFolder(scratch.appendingPathComponent(role.rawValue))
        }

        let reader = try ArchiveReader(archive)
        var seen: [String: Int] = [:], counts: [CorpusRole: Int] = [:]
        while let member = try reader.nextFile() {
            guard let placement = entry.layout.placement(of: member) else { continue }
            let key = "\(placement.role.rawValue)/\(placement.group)"
            defer { seen[key, default: 0] += 1 }
            guard placement.take.keeps(seen[key, default: 0]) else { continue }
            let target = scratch.appendingPathComponent(placement.role.rawValue).appendingPathComponent(placement.fileName)
            try write(reader, to: target)
            // Only what `train` can read is kept (a member that is not audio would stop it).
            guard (try? AudioFileReader.info(of: target)) != nil else {
                try? FileManager.default.removeItem(at: target)
                continue
            }
            counts[placement.role, default: 0] += 1
            progress(counts.values.reduce(0, +))
        }
        guard !counts.isEmpty else { throw .nothingToKeep(corpus: entry.name, layout: entry.layout.rawValue, archive: archive.path) }

        let marker = scratch.appendingPathComponent(CorpusStore.markerName)
        do { try Data(CorpusStore.marker(for: entry, counts: counts).utf8).write(to: marker) } catch {
            throw .unwritable(path: marker.path, reason: (error as NSError).localizedDescription)
        }
        let destination = store.folder(of: entry.name)
        try? FileManager.default.removeItem(at: destination)
        guard rename(scratch.path, destination.path) == 0 else {
            throw .unwritable(path: destination.path, reason: String(cString: strerror(errno)))
        }
        finished = true
        return counts
    }

    static func createFolder(_ url: URL) throws(CorpusError) {
        do { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) } catch {
            throw .unwritable(path: url.path, reason: (error as NSError).localizedDescription)
        }
    }

    private static func write(_ reader: ArchiveReader, to target: URL) throws(CorpusError) {
        let descriptor = open(target.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .unwritable(path: target.path, reason: String(cString: strerror(errno))) }
        do {
            try reader.copy(to: descriptor, written: target.path)
        } catch {
            close(descriptor)
            throw error
        }
        // A full disk may only show when the data reaches it.
        guard close(descriptor) == 0 else { throw .unwritable(path: target.path, reason: String(cString: strerror(errno))) }
    }
}
