import Foundation
import HotwordChildProcess

/// Where `scripts/install-voices.sh` puts the neural voices: piper (`bin/piper`) with its voices
/// (`voices/`), and the voice program (`bin/hotword-voices`) for the others.
public enum NeuralVoices {
    public static let defaultFolder = URL(fileURLWithPath: "/opt/hotword-voices")
    public static let programName = "hotword-voices"

    /// `name` on the search path, else (with the default search path) in the default folder's bin.
    static func locate(_ name: String, _ subprocess: Subprocess, defaultSearchPath: Bool) -> URL? {
        if let found = subprocess.locate(name) { return found }
        let installed = defaultFolder.appendingPathComponent("bin/\(name)")
        return defaultSearchPath && FileManager.default.isExecutableFile(atPath: installed.path) ? installed : nil
    }
}
