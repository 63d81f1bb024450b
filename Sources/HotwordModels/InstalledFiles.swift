import Foundation
import HotwordFolders

/// Where hotword's own files are: the folders installed beside the program (models, the
/// corpus catalogue) and the user's data folder.
public enum InstalledFiles {
    /// Folders that may hold `installedFolder` of `share/hotword`, in order: `override` (an
    /// environment variable's value), the source tree's `sourceFolder` next to a development
    /// build, beside the program (`bin/../share/hotword/…`), then /usr/local and /usr.
    public static func searchPath(sourceFolder: String, installedFolder: String, override: String? = nil) -> [String] {
        var folders: [String] = []
        if let override, !override.isEmpty { folders.append(override) }
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        // .build/<config>/hotword or .build/<triple>/<config>/hotword inside the source tree
        var folder = executable.deletingLastPathComponent()
        for _ in 0..<4 {
            folder = folder.deletingLastPathComponent()
            let candidate = folder.appendingPathComponent(sourceFolder).path
            if FileManager.default.fileExists(atPath: candidate) {
                folders.append(candidate)
                break
            }
        }
        folders.append(executable.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("share/hotword").appendingPathComponent(installedFolder).path)
        folders += ["/usr/local/share/hotword/\(installedFolder)", "/usr/share/hotword/\(installedFolder)"]
        var seen = Set<String>()
        return folders.filter { seen.insert($0).inserted }
    }

    /// `$XDG_DATA_HOME/hotword/<name>` (default `~/.local/share/hotword/<name>`): what hotword
    /// keeps for the user (enrollment takes, fetched corpora).
    public static func userData(_ name: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        UserFolder.data.file(name, environment: environment)
    }
}
