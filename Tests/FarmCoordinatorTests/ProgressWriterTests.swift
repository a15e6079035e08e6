import FarmCoordinator
import FarmCore
import FarmStore
import Foundation
import Logging
import Testing

/// Progress written off the coordinator's loop still reaches the database, the latest report of
/// each attempt, and only for the worker that holds it.
@Suite struct ProgressWriterTests {
    @Test func theLatestReportOfEachAttemptIsWrittenByTheTimeTheWriterFinishes() throws {
        try withJobInPrivateDatabase(chunks: 3) { _, database, store, job in
            for id in ["w1", "w2"] {
                try store.workerSeen(
                    WorkerInfo(id: id, host: "host", cores: 2, slots: 1, version: FarmVersion.current),
                    rendering: false)
            }
            let video = try store.claim([ClaimRequest(worker: "w1", count: 4)], leaseSeconds: 60)
                .filter { $0.work.kind == .video }
            try #require(video.count == 3)
            func report(_ chunk: ClaimedChunk, _ frames: Int64, _ fps: Double, by worker: String = "w1")
                -> FarmStore.ProgressRecord
            {
                FarmStore.ProgressRecord(key: chunk.key, worker: worker, frames: frames, fps: fps)
            }
            let writer = ProgressWriter(database: database, logger: Logger(label: "test"))
            writer.write([report(video[0], 5, 10), report(video[1], 3, 9)])
            // Reports of one attempt arriving while a write runs: the latest is the one kept.
            for frames in 6...20 { writer.write([report(video[0], Int64(frames), Double(frames))]) }
            writer.write([report(video[2], 8, 4, by: "w2")])
            writer.finish()

            let chunks = try store.jobDetail(job).chunks.filter { $0.kind == .video }.sorted { $0.index < $1.index }
            let byIndex = Dictionary(uniqueKeysWithValues: chunks.map { ($0.index, $0) })
            #expect(byIndex[video[0].work.index]?.framesDone == 20)
            #expect(byIndex[video[0].work.index]?.fps == 20)
            #expect(byIndex[video[1].work.index]?.framesDone == 3)
            // w2 does not hold it: its report changes nothing.
            #expect(byIndex[video[2].work.index]?.framesDone == 0)
        }
    }
}
