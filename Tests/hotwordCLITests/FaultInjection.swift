import Foundation
import HotwordTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// One thread of another process, stopped while the rest of the process runs on (a reader
/// that falls behind), by moving just that thread into a cgroup (v1) freezer of its own.
/// Needs root and the cgroup v1 freezer hierarchy.
final class FrozenThread {
    static let freezerRoot = URL(fileURLWithPath: "/sys/fs/cgroup/freezer")

    let threadID: Int32
    private let group: URL
    private var frozen = true

    /// Freezes the thread named `name` of process `pid`, and waits until it is frozen.
    init(named name: String, of pid: Int32) throws {
        let tasks = URL(fileURLWithPath: "/proc/\(pid)/task")
        let ids = (try? FileManager.default.contentsOfDirectory(atPath: tasks.path)) ?? []
        // Linux keeps the first 15 bytes of a thread's name.
        guard let id = ids.first(where: { id in
            let comm = (try? String(contentsOf: tasks.appendingPathComponent("\(id)/comm"), encoding: .utf8)) ?? ""
            return comm.trimmingCharacters(in: .newlines) == String(name.utf8.prefix(15))!
        }).flatMap({ Int32($0) }) else {
            throw FaultSetupError("process \(pid) has no thread named \(name)")
        }
        threadID = id
        guard FileManager.default.fileExists(atPath: Self.freezerRoot.appendingPathComponent("tasks").path) else {
            throw FaultSetupError("no cgroup v1 freezer at \(Self.freezerRoot.path)")
        }
        group = Self.freezerRoot.appendingPathComponent("hotword-test-\(UUID().uuidString)")
        guard mkdir(group.path, 0o755) == 0 else {
            throw FaultSetupError("cannot create the freezer cgroup \(group.path) (needs root)", errno: errno)
        }
        do {
            try Self.write("\(id)", to: group.appendingPathComponent("tasks"))
            try Self.write("FROZEN", to: group.appendingPathComponent("freezer.state"))
        } catch {
            release()
            throw error
        }
        let deadline = ContinuousClock.now + .seconds(5)
        while state != "FROZEN", ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.01) }
    }

    deinit { thaw() }

    /// Lets the thread run again and removes the cgroup; safe more than once.
    func thaw() {
        guard frozen else { return }
        frozen = false
        try? Self.write("THAWED", to: group.appendingPathComponent("freezer.state"))
        release()
    }

    private var state: String {
        ((try? String(contentsOf: group.appendingPathComponent("freezer.state"), encoding: .utf8)) ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Puts the thread back into the root group (it may have ended) and removes ours.
    private func release() {
        try? Self.write("\(threadID)", to: Self.freezerRoot.appendingPathComponent("tasks"))
        rmdir(group.path)
    }

    /// cgroup files take one write() of the whole value.
    private static func write(_ value: String, to file: URL) throws {
        let descriptor = open(file.path, O_WRONLY)
        guard descriptor >= 0 else { throw FaultSetupError("cannot open \(file.path)", errno: errno) }
        defer { close(descriptor) }
        let bytes = Array(value.utf8)
        guard Glibc.write(descriptor, bytes, bytes.count) == bytes.count else {
            throw FaultSetupError("cannot write '\(value)' to \(file.path)", errno: errno)
        }
    }
}
