import FarmCore
import Foundation

/// A job row, as the coordinator and the CLI read it.
public struct JobRecord: Sendable {
    static let columns =
        "id, name, state, priority, output_path, container, fps, frame_count, error, paused, "
        + "project_file, width, height, sample_rate"

    public var id: Int64
    public var name: String
    public var state: JobState
    public var priority: Int
    public var outputPath: String
    public var container: ExportSettings.Container
    public var fps: Rational
    public var frameCount: Int64
    public var error: String?
    public var paused: Bool
    public var projectFile: String
    public var width: Int
    public var height: Int
    public var sampleRate: Int

    init(_ row: Row) throws {
        id = row.int(0)
        name = row.string(1)
        state = try JobState(stored: row.string(2))
        priority = Int(row.int(3))
        outputPath = row.string(4)
        guard let container = ExportSettings.Container(rawValue: row.string(5)) else {
            throw PostgresError(message: "job \(id) has an unknown container \"\(row.string(5))\"", state: nil)
        }
        self.container = container
        guard let fps = Rational(parsing: row.string(6)) else {
            throw PostgresError(message: "job \(id) has an unreadable frame rate \"\(row.string(6))\"", state: nil)
        }
        self.fps = fps
        frameCount = row.int(7)
        error = row[8]
        paused = row.bool(9)
        projectFile = row.string(10)
        width = Int(row.int(11))
        height = Int(row.int(12))
        sampleRate = Int(row.int(13))
    }

    /// Every timeline sample of the job: what its audio blocks cover.
    public var samples: Range<Int64> {
        0..<AudioBlocks.sampleIndex(ofFrame: frameCount, fps: fps, sampleRate: sampleRate)
    }

    public var isFinished: Bool { state.isFinished }
}

/// A chunk row.
public struct ChunkRecord: Sendable {
    static let columns = "id, job_id, kind, idx, start_frame, end_frame, state, attempt, worker_id, content_key"

    public var id: Int64
    public var job: Int64
    public var kind: ChunkKind
    public var index: Int
    public var start: Int64
    public var end: Int64
    public var state: ChunkState
    public var attempt: Int
    public var worker: String?
    /// Its key in the segment cache (`ChunkKeys`); nil for chunks queued before 0.9.
    public var contentKey: String?

    /// How a job's error names this chunk.
    var label: String {
        kind == .audio ? "the audio task" : "chunk \(index) (frames \(start)..\(end))"
    }

    init(_ row: Row) throws {
        id = row.int(0)
        job = row.int(1)
        kind = try ChunkKind(stored: row.string(2))
        index = Int(row.int(3))
        start = row.int(4)
        end = row.int(5)
        state = try ChunkState(stored: row.string(6))
        attempt = Int(row.int(7))
        worker = row[8]
        contentKey = row[9]
    }

    public var chunk: Chunk { Chunk(index: index, start: start, end: end) }
}

/// Free render slots of one worker, to fill in a claim.
public struct ClaimRequest: Sendable, Hashable {
    public var worker: String
    public var count: Int

    public init(worker: String, count: Int) {
        self.worker = worker
        self.count = count
    }
}

/// A chunk just leased to a worker, with what the worker needs to render it.
public struct ClaimedChunk: Sendable, Hashable {
    /// The worker it is leased to.
    public var worker: String
    public var key: AttemptKey
    public var job: Int64
    public var kind: ChunkKind
    public var chunk: Chunk
    /// The project document exactly as submitted.
    public var projectText: String
    public var projectFile: String
    /// Where the submitter's relative asset paths pointed.
    public var mediaRoot: String
    /// The version of each asset the job was submitted with.
    public var mediaPins: [String: MediaPin]

    public init(
        worker: String, key: AttemptKey, job: Int64, kind: ChunkKind, chunk: Chunk, projectText: String,
        projectFile: String, mediaRoot: String, mediaPins: [String: MediaPin]
    ) {
        self.worker = worker
        self.key = key
        self.job = job
        self.kind = kind
        self.chunk = chunk
        self.projectText = projectText
        self.projectFile = projectFile
        self.mediaRoot = mediaRoot
        self.mediaPins = mediaPins
    }
}
