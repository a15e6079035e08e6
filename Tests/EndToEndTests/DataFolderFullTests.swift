import FarmCore
import FarmStore
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The coordinator's data folder fills up mid-job, on a small tmpfs: `farm status` says so,
/// nothing is failed or accepted half-written, and the job finishes once space is freed.
@Suite(.serialized) struct DataFolderFullTests {
    /// Bytes free for an unprivileged writer on the file system holding `url`.
    static func freeBytes(_ url: URL) throws -> Int64 {
        var stats = statvfs()
        guard statvfs(url.path, &stats) == 0 else { throw TestError.failed("statvfs \(url.path): \(errno)") }
        return Int64(stats.f_bavail) * Int64(stats.f_frsize)
    }

    @Test(.enabled(if: getuid() == 0, "mounting a small tmpfs takes root"))
    func aFullDataFolderHoldsUploadsUntilSpaceIsFreed() throws {
        try withTemporaryDirectory { dir in
            let (project, reference) = try FarmRecoveryTests.slowProject(in: dir)
            let data = dir.appendingPathComponent("data")
            try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
            let mounted = try run("/bin/mount", ["-t", "tmpfs", "-o", "size=8m", "farm-test-data", data.path])
            try #require(mounted.status == 0, "\(mounted.stderr)")
            defer { _ = try? run("/bin/umount", ["-l", data.path]) }
            let farm = try TestFarm(directory: dir)
            farm.dataDirectory = data
            defer { farm.stopAll() }
            try farm.startCoordinator()
            // Leave 64 kB: less than any segment, and less than one 1 MB upload piece, so the
            // disk fills in the middle of a piece.
            let filler = data.appendingPathComponent("filler")
            let room = try Self.freeBytes(data) - 64 * 1024
            try #require(FileManager.default.createFile(atPath: filler.path, contents: Data(count: Int(room))))
            try farm.startWorker("w1")
            try farm.startWorker("w2")
            let output = dir.appendingPathComponent("out.mov")
            let job = try farm.submit(project, output: output, chunkArguments: ["--chunk-frames", "60"])

            let full = "the coordinator's data folder \(data.path) is full (No space left on device)"
            try farm.wait("farm status to show the full data folder", timeout: 120) {
                try farm.json([JobStatus].self, ["status", "--json"]).first?.warning?.hasPrefix(full) == true
            }
            let shown = try farm.cli(["status"])
            #expect(shown.status == 0)
            #expect(shown.stdout.contains("warning: \(full); uploads wait until space is freed"), "\(shown.stdout)")
            let detail = try farm.cli(["status", String(job)])
            #expect(detail.stdout.contains("  warning   \(full)"), "\(detail.stdout)")
            // The failed piece's partial bytes were cut back off its file: the room is free again.
            try farm.wait("the partial piece to be cut back", timeout: 30) { try Self.freeBytes(data) >= 32 * 1024 }
            // Held, not failed: no attempt failed, nothing accepted, the job still runs.
            #expect(try farm.attempts(job).allSatisfy { $0.outcome == "running" }, "\(farm.logs)")
            #expect(try farm.store.job(job)?.state == .running)

            try FileManager.default.removeItem(at: filler)
            try FarmOutageTests.expectFinishedUndisturbed(farm, job: job, output: output, reference: reference)
            let cleared = try farm.store.connection.query("SELECT data_folder_problem FROM farm_identity")
            #expect(try cleared[0].decode("data_folder_problem", as: String?.self) == nil)
            #expect(farm.coordinator?.output.contains("takes writes again; uploads go on") == true, "\(farm.logs)")
        }
    }
}
