import FarmCore
import FarmPostgres
import Foundation

/// A job row, as the coordinator and the CLI read it.
public struct JobRecord: Sendable {
    /// What `init(row:)` reads, by these names.
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

    init(row: PostgresRow) throws {
        id = try row.decode("id")
        name = try row.decode("name")
        state = try row.decode("state")
        priority = try row.decode("priority")
        outputPath = try row.decode("output_path")
        container = try row.decode("container")
        fps = try row.decode("fps")
        frameCount = try row.decode("frame_count")
        error = try row.decode("error")
        paused = try row.decode("paused")
        projectFile = try row.decode("project_file")
        width = try row.decode("width")
        height = try row.decode("height")
        sampleRate = try row.decode("sample_rate")
    }

    /// Every timeline sample of the job: what its audio blocks cover.
    public var samples: Range<Int64> {
        0..<AudioBlocks.sampleIndex(ofFrame: frameCount, fps: fps, sampleRate: sampleRate)
    }

    public var isFinished: Bool { state.isFinished }
}

/// A chunk row.
public struct ChunkRecord: Sendable {
    /// What `init(row:)` reads, by these names.
    package static let columns = "id, job_id, \(WorkItem.columns()), state, attempt, worker_id, content_key"

    public var id: Int64
    public var job: Int64
    /// A video chunk in output frames or an audio block in timeline samples.
    public var work: WorkItem
    public var state: ChunkState
    public var attempt: Int
    public var worker: String?
    /// Its key in the segment cache (`ChunkKeys`); nil for chunks queued before 0.9.
    public var contentKey: String?

    package init(
        id: Int64, job: Int64, work: WorkItem, state: ChunkState, attempt: Int, worker: String? = nil,
        contentKey: String? = nil
    ) {
        self.id = id
        self.job = job
        self.work = work
        self.state = state
        self.attempt = attempt
        self.worker = worker
        self.contentKey = contentKey
    }

    public var kind: ChunkKind { work.kind }
    public var index: Int { work.index }

    /// How errors and logs name it: a video chunk with its frames, an audio block by number.
    public var label: String {
        switch work {
        case .video(let chunk): "chunk \(chunk.index) (frames \(chunk.start)..\(chunk.end))"
        case .audio(let block): "audio block \(block.index)"
        case .loudness(let block): "loudness block \(block.index)"
        }
    }

    package init(row: PostgresRow) throws {
        id = try row.decode("id")
        job = try row.decode("job_id")
        work = try WorkItem(row: row)
        state = try row.decode("state")
        attempt = try row.decode("attempt")
        worker = try row.decode("worker_id")
        contentKey = try row.decode("content_key")
    }
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
    /// A video chunk in output frames or an audio block in timeline samples.
    public var work: WorkItem
    /// The project document exactly as submitted.
    public var projectText: String
    public var projectFile: String
    /// Where the submitter's relative asset paths pointed.
    public var mediaRoot: String
    /// The version of each asset the job was submitted with.
    public var mediaPins: [String: MediaPin]
    /// An audio block's programme gain, when its job has a loudness target.
    public var programmeGain: ProgrammeGain?

    public var kind: ChunkKind { work.kind }

    public init(
        worker: String, key: AttemptKey, job: Int64, work: WorkItem, projectText: String, projectFile: String,
        mediaRoot: String, mediaPins: [String: MediaPin], programmeGain: ProgrammeGain? = nil
    ) {
        self.programmeGain = programmeGain
        self.worker = worker
        self.key = key
        self.job = job
        self.work = work
        self.projectText = projectText
        self.projectFile = projectFile
        self.mediaRoot = mediaRoot
        self.mediaPins = mediaPins
    }
}
