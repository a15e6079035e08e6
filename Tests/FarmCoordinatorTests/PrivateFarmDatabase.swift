import FarmCore
import FarmPostgres
import FarmStore
import Foundation
import TestSupport

/// A private PostgreSQL in a temporary folder with one job of `chunks` 30-frame video chunks
/// and one audio block: the database the coordinator's unit tests turn their loops against.
func withJobInPrivateDatabase(
    chunks: Int, _ body: (_ dir: URL, _ database: String, _ store: FarmStore, _ job: Int64) throws -> Void
) throws {
    try withTemporaryDirectory { dir in
        let server = try PrivatePostgres(directory: dir.appendingPathComponent("pg"))
        try server.start()
        defer { server.stop() }
        let store = try FarmStore(url: server.connectionString)
        let job = try store.submit(
            JobSubmission(
                name: "job", projectFile: "/projects/job.json", projectText: "{}", mediaRoot: "/media",
                outputPath: "/out/job.mp4", container: .mp4, fps: Rational(30), frameCount: Int64(chunks * 30),
                width: 64, height: 64, priority: 0,
                chunks: (0..<chunks).map { Chunk(index: $0, start: Int64($0 * 30), end: Int64($0 * 30 + 30)) },
                audioBlocks: [AudioBlock(index: 0, start: 0, end: 48000)], sampleRate: 48000))
        try body(dir, server.connectionString, store, job)
    }
}
