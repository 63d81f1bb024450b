import Foundation
import HotwordModels
import HotwordTestSupport
import Testing

/// What `ModelStore` refuses before reading a file: anything larger than a model can be, and
/// anything that is not a file.
@Suite struct ModelStoreReadingTests {
    @Test func aFileLargerThanAnyModelIsRefusedUnread() throws {
        let folder = try TestPaths.temporaryDirectory("model-store")
        defer { try? FileManager.default.removeItem(at: folder) }
        // 2 GiB with the right magic was read whole (4.2 GB resident) before its checksum failed.
        let path = folder.appendingPathComponent("huge.hwks").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data("HWKS".utf8)))
        #expect(truncate(path, 2 << 30) == 0)  // sparse: no disk, nor memory unless read
        #expect(ProcessStatus.resetPeak())
        let before = try #require(ProcessStatus.kibibytes("VmHWM"))
        let error = #expect(throws: ModelFileError.self) { try ModelStore.load(path) }
        #expect(error?.description == "\(path): 2147483648 bytes is larger than any model (at most 64 MiB); not read")
        let grown = try #require(ProcessStatus.kibibytes("VmHWM")) - before
        #expect(grown < 16 * 1024, "the peak of resident memory grew by \(grown) KiB")
    }

    @Test func aDeviceAFolderOrAPipeIsNotAModel() throws {
        let folder = try TestPaths.temporaryDirectory("model-store")
        defer { try? FileManager.default.removeItem(at: folder) }
        let fifo = folder.appendingPathComponent("pipe.hwks").path
        #expect(mkfifo(fifo, 0o600) == 0)
        // `/dev/zero` was "You don't have permission"; a pipe with no writer would be waited on for ever.
        for path in ["/dev/zero", "/tmp", fifo] {
            let error = #expect(throws: ModelFileError.self) { try ModelStore.load(path) }
            #expect(error?.description == "\(path): cannot read the model: not a regular file (a folder or a device), so not a model")
        }
    }
}
