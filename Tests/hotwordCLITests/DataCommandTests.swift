import Foundation
import HotwordCore
import HotwordModels
import HotwordTestSupport
import Testing

/// `hotword data list` and `hotword data fetch` against a real HTTP server on 127.0.0.1
/// serving a Speech Commands archive made for the test; `train` and `eval` using what was fetched.
@Suite final class DataCommandTests {
    let folder: URL
    let archive: Data
    let dataDirectory: String

    init() throws {
        folder = try TestPaths.temporaryDirectory("data-cli")
        // Four seconds of white noise: the archive does not compress below 100 KiB.
        archive = try TestCorpora.speechCommands(in: folder, noiseSeconds: 4)
        dataDirectory = folder.appendingPathComponent("data").path
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    /// A catalogue naming the archive at `server`, pinned with `sha256sum`'s digest.
    private func catalogue(_ server: TestHTTPServer, sha256: String? = nil) throws -> String {
        let file = folder.appendingPathComponent("archive")
        try archive.write(to: file)
        let digest = try sha256 ?? Self.sha256sum(file)
        let path = folder.appendingPathComponent("catalogue.tsv").path
        let line = ["speech_commands", "speech-commands", "\(archive.count)", "sha256:\(digest)", "CC BY 4.0",
                    server.baseURL.appendingPathComponent("sc.tar.gz").absoluteString, "one-second words"].joined(separator: "\t")
        try Data("# test catalogue\n\(line)\n".utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    private static func sha256sum(_ file: URL) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        process.arguments = [file.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return String(text.prefix(64))
    }

    private func fetch(_ catalogue: String, directory: String? = nil) async throws -> HotwordBinary.Result {
        try await HotwordBinary.run(["data", "fetch", "speech_commands", "--catalogue", catalogue, "--dir", directory ?? dataDirectory])
    }

    @Test func fetchDownloadsVerifiesAndUnpacksAndListShowsIt() async throws {
        let server = try TestHTTPServer.serving(archive, at: "/sc.tar.gz")
        defer { server.shutdown() }
        let catalogue = try catalogue(server)
        let before = try await HotwordBinary.run(["data", "list", "--catalogue", catalogue, "--dir", dataDirectory])
        #expect(before.status == 0, "\(before.stderr)")
        #expect(before.stdout.hasPrefix("speech_commands  \(String(format: "%.0f", Double(archive.count) / 1000)) kB  CC BY 4.0  (words, noise)  not fetched\n    one-second words\n"),
                "\(before.stdout)")

        let fetched = try await fetch(catalogue)
        #expect(fetched.status == 0, "\(fetched.stderr)")
        #expect(fetched.stdout == "speech_commands: 4 words, 2 noise in \(dataDirectory)/speech_commands\n")
        #expect(fetched.stderr.contains("speech_commands: downloading \(server.baseURL.absoluteString)/sc.tar.gz"), "\(fetched.stderr)")
        #expect(fetched.stderr.contains("speech_commands: 100 %,") && fetched.stderr.contains("speech_commands: sha256 verified"), "\(fetched.stderr)")
        let words = try FileManager.default.contentsOfDirectory(atPath: "\(dataDirectory)/speech_commands/words").sorted()
        #expect(words == ["00000000_yes.wav", "00000001_yes.wav", "00000002_yes.wav", "abcdef12_no.wav"])

        let after = try await HotwordBinary.run(["data", "list", "--catalogue", catalogue, "--dir", dataDirectory])
        #expect(after.stdout.contains("(words, noise)  fetched: 4 words, 2 noise\n"), "\(after.stdout)")
        let again = try await fetch(catalogue)
        #expect(again.status == 0 && again.stdout.hasPrefix("speech_commands: already fetched (4 words, 2 noise)"), "\(again.stdout)")
        #expect(server.requests.count == 1)
    }

    @Test func aChecksumMismatchFailsWithBothDigests() async throws {
        let server = try TestHTTPServer.serving(archive, at: "/sc.tar.gz")
        defer { server.shutdown() }
        let wrong = String(repeating: "ab", count: 32)
        let result = try await fetch(try catalogue(server, sha256: wrong))
        #expect(result.status == 1)
        #expect(result.stderr.contains("Error: speech_commands: the download of \(server.baseURL.absoluteString)/sc.tar.gz has sha256 "), "\(result.stderr)")
        #expect(result.stderr.contains(", the catalogue says \(wrong); the download was deleted"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "\(dataDirectory)/speech_commands"))
    }

    @Test func a404FailsNamingTheURL() async throws {
        let server = try TestHTTPServer.serving(archive, at: "/elsewhere")
        defer { server.shutdown() }
        let result = try await fetch(try catalogue(server))
        #expect(result.status == 1)
        #expect(result.stderr.hasSuffix("Error: speech_commands: \(server.baseURL.absoluteString)/sc.tar.gz answered HTTP 404\n"), "\(result.stderr)")
    }

    @Test func unknownNamesAndBrokenCataloguesAreTold() async throws {
        let server = try TestHTTPServer.serving(archive, at: "/sc.tar.gz")
        defer { server.shutdown() }
        let unknown = try await HotwordBinary.run(["data", "fetch", "speech_comands", "--catalogue", try catalogue(server), "--dir", dataDirectory])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("no corpus named 'speech_comands' in the catalogue; it lists speech_commands"), "\(unknown.stderr)")
        let broken = folder.appendingPathComponent("broken.tsv")
        try Data("# one\nmusan\tmusan\t11G\tmd5:0c472d4fc0c5141eca47ad1ffeb2a7df\tCC BY 4.0\thttps://x.org/m\tnoise\n".utf8).write(to: broken)
        let list = try await HotwordBinary.run(["data", "list", "--catalogue", broken.path])
        #expect(list.status == 78)
        #expect(list.stderr == "Error: \(broken.path):2: bytes '11G': expected a whole number of bytes, with ~ before it if it is only rounded\n")
        #expect(server.requests.isEmpty)
    }

    /// A disk that fills during the download: the error names the file and the reason, the
    /// part already downloaded stays, and with room again the next fetch resumes it.
    @Test func aFullDiskStopsTheFetchAndTheNextResumesIt() async throws {
        let disk: TemporaryDisk
        do { disk = try TemporaryDisk(at: folder.appendingPathComponent("disk"), bytes: 64 << 10) } catch { try Test.cancel("\(error)") }
        defer { disk.unmount() }
        let server = try TestHTTPServer.serving(archive, at: "/sc.tar.gz")
        defer { server.shutdown() }
        let catalogue = try catalogue(server)
        let full = try await fetch(catalogue, directory: disk.url.path)
        #expect(full.status == 1)
        #expect(full.stderr.hasSuffix("Error: cannot write \(disk.url.path)/.downloads/speech_commands.part: No space left on device\n"), "\(full.stderr)")
        let kept = try FileManager.default.attributesOfItem(atPath: "\(disk.url.path)/.downloads/speech_commands.part")[.size] as! Int
        #expect(kept > 0 && kept < archive.count)

        try disk.resize(bytes: 4 << 20)
        let resumed = try await fetch(catalogue, directory: disk.url.path)
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(resumed.stderr.contains("speech_commands: resuming \(server.baseURL.absoluteString)/sc.tar.gz"), "\(resumed.stderr)")
        #expect(server.requests.last?.header("Range") == "bytes=\(kept)-")
        #expect(FileManager.default.fileExists(atPath: "\(disk.url.path)/speech_commands/words/abcdef12_no.wav"))
    }

    @Test func evalUsesTheFetchedCorporaAndSaysSo() async throws {
        let server = try TestHTTPServer.serving(archive, at: "/sc.tar.gz")
        defer { server.shutdown() }
        #expect(try await fetch(try catalogue(server)).status == 0)
        let model = folder.appendingPathComponent("beep.hwks").path
        try ModelStore.save(ToneModels.model(keyword: "beep", frequency: 1_000), to: model)
        let result = try await HotwordBinary.run(["eval", "--model", model, "--part", "all", "--json", "--data-dir", dataDirectory])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("--negatives not given: using the fetched corpora \(dataDirectory)/speech_commands/words)\n"), "\(result.stderr)")
        #expect(result.stderr.contains("--noise not given: using the fetched corpora \(dataDirectory)/speech_commands/noise)\n"), "\(result.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any]
        #expect((report["negative_hours"] as! Double) > 0)

        // A fetched corpus by name, beside a folder of the user's.
        let mine = folder.appendingPathComponent("mine")
        try TestCorpora.writeClip(mine.appendingPathComponent("me_talking.wav"), seconds: 2)
        let named = try await HotwordBinary.run(["eval", "--model", model, "--part", "all", "--json", "--data-dir", dataDirectory,
                                                 "--negatives", mine.path, "--negatives", "speech_commands", "--noise", "speech_commands"])
        #expect(named.status == 0, "\(named.stderr)")
        #expect(named.stderr == "(--negatives speech_commands: the fetched corpus \(dataDirectory)/speech_commands/words)\n"
                + "(--noise speech_commands: the fetched corpus \(dataDirectory)/speech_commands/noise)\n")
        let both = try JSONSerialization.jsonObject(with: Data(named.stdout.utf8)) as! [String: Any]
        #expect((both["negative_hours"] as! Double) > (report["negative_hours"] as! Double))

        let nothing = try await HotwordBinary.run(["eval", "--model", model, "--data-dir", folder.appendingPathComponent("none").path])
        #expect(nothing.status == 1 && nothing.stderr.contains("no negative audio"), "\(nothing.stderr)")
    }

    @Test func trainWithoutNegativesOrFetchedCorporaSaysHowToGetThem() async throws {
        let empty = folder.appendingPathComponent("empty").path
        let result = try await HotwordBinary.run(["train", "--keyword", "beep", "--positives", folder.path, "--out",
                                                  folder.appendingPathComponent("m.hwks").path, "--data-dir", empty])
        #expect(result.status == 1)
        #expect(result.stderr == "Error: no --negatives given and no fetched corpus of speech in \(empty): `hotword data fetch speech_commands librispeech_dev_clean` fetches some (`hotword data list` shows all), or give --negatives DIR\n")
    }
}
