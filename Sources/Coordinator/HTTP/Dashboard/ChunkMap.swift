import FarmStore

/// Every chunk of a job in a compact shape, for the dashboard's chunk map: one letter of state
/// per chunk and columns of numbers, about 20 bytes a chunk where `GET /api/jobs/{id}?all=true`
/// takes 200, so a job of 100,000 chunks is a map of 2 MB.
package struct ChunkMap: Codable, Sendable {
    package struct Chunks: Codable, Sendable {
        /// A letter per chunk, in index order: q(ueued), r(unning), d(one), f(ailed), c (reused
        /// from the cache) or x (stopped: its job was cancelled or failed before it rendered).
        package var states: String = ""
        var start: [Int64] = []
        var end: [Int64] = []
        /// Index into `workers` of the latest attempt's worker, -1 for none.
        package var worker: [Int] = []
        var attempt: [Int] = []
        /// Seconds the latest attempt took (or has taken so far), -1 before the first.
        var seconds: [Double] = []
    }

    package var workers: [String] = []
    package var video = Chunks()
    package var audio = Chunks()
    /// The measuring passes of a job with a loudness target, one per audio block: their own
    /// row, never drawn as audio blocks.
    package var loudness = Chunks()

    /// `ended`: the job was cancelled or failed, so nothing queued or running will render.
    package init(_ chunks: [ChunkStatus], ended: Bool = false) {
        var workerIndex: [String: Int] = [:]
        for chunk in chunks {
            let worker = chunk.worker.map { name in
                if let index = workerIndex[name] { return index }
                workers.append(name)
                workerIndex[name] = workers.count - 1
                return workers.count - 1
            }
            let unfinished = chunk.state == .queued || chunk.state == .running
            let letter = ended && unfinished ? "x" : Self.letters[chunk.state] ?? "q"
            switch chunk.kind {
            case .video: Self.append(chunk, letter: letter, worker: worker, to: &video)
            case .audio: Self.append(chunk, letter: letter, worker: worker, to: &audio)
            case .loudness: Self.append(chunk, letter: letter, worker: worker, to: &loudness)
            }
        }
    }

    static let letters: [ChunkStatus.State: String] = [
        .queued: "q", .running: "r", .done: "d", .failed: "f", .reused: "c",
    ]

    private static func append(_ chunk: ChunkStatus, letter: String, worker: Int?, to list: inout Chunks) {
        list.states += letter
        list.start.append(chunk.start)
        list.end.append(chunk.end)
        list.worker.append(worker ?? -1)
        list.attempt.append(chunk.attempt)
        list.seconds.append(((chunk.seconds ?? -1) * 100).rounded() / 100)
    }
}
