import FarmCore
import FarmHTTP
import FarmStore
import Testing

/// The dashboard's chunk map: a cancelled or failed job's unrendered chunks are stopped, not
/// queued, and a loudness target's measuring passes are a row of their own, never counted as
/// audio blocks.
@Suite struct ChunkMapTests {
    static func chunk(_ kind: ChunkKind, _ index: Int, _ state: ChunkStatus.State, worker: String? = nil)
        -> ChunkStatus
    {
        ChunkStatus(
            index: index, kind: kind, start: Int64(index * 30), end: Int64(index * 30 + 30), state: state,
            worker: worker, attempt: worker == nil ? 0 : 1)
    }

    static let chunks = [
        chunk(.video, 0, .done, worker: "w1@vm"), chunk(.video, 1, .running, worker: "w2@vm"),
        chunk(.video, 2, .queued), chunk(.video, 3, .reused), chunk(.audio, 0, .done, worker: "w1@vm"),
        chunk(.audio, 1, .queued), chunk(.loudness, 0, .done, worker: "w2@vm"), chunk(.loudness, 1, .failed),
    ]

    @Test func aRunningJobsMapShowsEachStateAndLoudnessApart() {
        let map = ChunkMap(Self.chunks)
        #expect(map.video.states == "drqc" && map.audio.states == "dq" && map.loudness.states == "df")
        #expect(map.workers == ["w1@vm", "w2@vm"] && map.loudness.worker == [1, -1])
    }

    @Test func anEndedJobsUnrenderedChunksAreStopped() {
        let map = ChunkMap(Self.chunks, ended: true)
        #expect(map.video.states == "dxxc" && map.audio.states == "dx" && map.loudness.states == "df")
    }
}
