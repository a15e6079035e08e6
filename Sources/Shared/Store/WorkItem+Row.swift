import FarmCore
import FarmPostgres

extension WorkItem {
    /// A chunk row's columns that `init(row:)` reads (of `table`, when a query names it): its
    /// kind, index and span in its own unit.
    static func columns(of table: String? = nil) -> String {
        let prefix = table.map { "\($0)." } ?? ""
        return ["kind", "idx", "start_frame", "end_frame", "start_sample", "end_sample"].map { prefix + $0 }
            .joined(separator: ", ")
    }

    /// The work item of a chunk row: frames for a video chunk, samples for an audio block. The
    /// other pair is NULL (migration 18's CHECK); reading the kind's own pair as non-Optional
    /// makes a row that breaks that an error naming the column.
    init(row: PostgresRow) throws {
        let index: Int = try row.decode("idx")
        switch try row.decode("kind", as: ChunkKind.self) {
        case .video:
            self = .video(Chunk(index: index, start: try row.decode("start_frame"), end: try row.decode("end_frame")))
        case .audio:
            self = .audio(
                AudioBlock(index: index, start: try row.decode("start_sample"), end: try row.decode("end_sample")))
        case .loudness:
            self = .loudness(
                AudioBlock(index: index, start: try row.decode("start_sample"), end: try row.decode("end_sample")))
        }
    }
}
