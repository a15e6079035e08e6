/// What `farm status`, `farm watch`, `farm workers` and `farm logs` show, as read from the
/// database in one query each. These are the `--json` shapes: every field is documented in
/// docs/cli.md, so rename nothing without updating it. Times are ISO 8601 in UTC; durations and
/// rates are seconds and frames per second. States are their stored text in JSON.

import FarmCore

/// One job with its progress.
public struct JobStatus: Codable, Sendable, Equatable {
    public var id: Int64
    public var name: String
    /// queued, running, joining, done, failed or cancelled.
    public var state: JobState
    public var paused: Bool
    public var priority: Int
    /// Frames of accepted chunks plus what live attempts have rendered so far.
    public var framesDone: Int64
    public var frameCount: Int64
    /// framesDone / frameCount × 100.
    public var percent: Double
    /// Frames per second now: the sum of its rendering chunks' speeds, each over the worker's
    /// last few seconds; nil while none renders.
    public var fps: Double?
    /// Seconds left at `fps`; nil while nothing renders, while it is paused, once it ended, and
    /// while no coordinator serves the farm (nothing would finish it).
    public var etaSeconds: Double?
    /// Seconds from the first assignment to the end (or to now).
    public var elapsedSeconds: Double?
    public var submittedAt: String
    public var startedAt: String?
    public var finishedAt: String?
    public var chunks: ChunkCounts
    public var output: String
    public var error: String?
    /// What holds the farm up while the job runs, such as the coordinator's data folder being
    /// full; nil when nothing does and once the job ended.
    public var warning: String?
    /// Bytes its segments hold in the coordinator's data folder once it ended (0 once pruned);
    /// nil while it runs or until the coordinator has measured them.
    public var segmentBytes: Int64? = nil
    /// The tags a worker needs to render it (`farm submit --requires`).
    public var requires: [String] = []
    /// The kind of render node its chunks are rendered by (`RenderNodeKind.summary`), once its
    /// first chunk was claimed or reused from the cache.
    public var renderKind: String? = nil
    /// Why none of its chunks renders while some wait ("no live worker has tags 4k"); nil
    /// when one renders, when it is paused or once it ended.
    public var waitingFor: String? = nil
    /// Frames rendered this run over the seconds since its first chunk was assigned.
    public var averageFps: Double? = nil
    /// Frames rendered this run (since `startedAt`): all of them for a first run, those of the
    /// retried chunks after a retry; chunks kept from before or taken from the cache not counted.
    public var framesRendered: Int64 = 0
    /// The jobs it waits on (`--after`) that have not finished yet; none of its chunks is handed
    /// out before.
    public var waitsOn: [Int64] = []

    public var isFinished: Bool { state.isFinished }
}

/// Chunks (the video chunks and the audio blocks) by state; the five counts add up to `total`.
public struct ChunkCounts: Codable, Sendable, Equatable {
    public var queued: Int
    public var running: Int
    public var done: Int
    /// Waiting for another try: the latest attempt failed.
    public var failed: Int
    public var total: Int
    /// Of a failed or cancelled job, the chunks it never finished (then none is queued,
    /// running or failed: nothing will render them).
    public var unfinished: Int = 0

    package init(queued: Int, running: Int, done: Int, failed: Int, total: Int, unfinished: Int = 0) {
        (self.queued, self.running, self.done, self.failed, self.total) = (queued, running, done, failed, total)
        self.unfinished = unfinished
    }
}

/// One chunk of a job.
public struct ChunkStatus: Codable, Sendable, Equatable {
    /// The video chunk's or the audio block's index.
    public var index: Int
    /// video or audio.
    public var kind: ChunkKind
    /// Its span, start..<end: output frames of a video chunk, timeline samples of an audio block.
    public var start: Int64
    public var end: Int64
    /// queued, running, done, failed (queued again after a failed attempt) or reused (done by
    /// a segment from the cache, never rendered for this job).
    public var state: State
    /// The worker of the latest attempt.
    public var worker: String?
    /// The latest attempt's number (0 before the first).
    public var attempt: Int
    /// A video chunk's frames done (absent for an audio block).
    public var framesDone: Int64?
    /// An audio block's timeline samples done, and the seconds of sound they make (absent for a
    /// video chunk).
    public var samplesDone: Int64?
    public var soundSeconds: Double?
    /// An audio block's samples per second: the unit of its `start`, `end` and `samplesDone`
    /// (absent for a video chunk).
    public var sampleRate: Int?
    /// A video chunk's frames per second (absent for an audio block).
    public var fps: Double?
    /// Seconds the latest attempt has taken since it was assigned.
    public var seconds: Double?
    /// The newest error of any attempt of this chunk.
    public var error: String?

    package init(
        index: Int, kind: ChunkKind, start: Int64, end: Int64, state: State, worker: String? = nil, attempt: Int,
        framesDone: Int64? = nil, samplesDone: Int64? = nil, soundSeconds: Double? = nil, sampleRate: Int? = nil,
        fps: Double? = nil, seconds: Double? = nil, error: String? = nil
    ) {
        self.index = index
        self.kind = kind
        self.start = start
        self.end = end
        self.state = state
        self.worker = worker
        self.attempt = attempt
        self.framesDone = framesDone
        self.samplesDone = samplesDone
        self.soundSeconds = soundSeconds
        self.sampleRate = sampleRate
        self.fps = fps
        self.seconds = seconds
        self.error = error
    }
}

extension ChunkStatus {
    /// A chunk as views show it: its stored state, or failed while it waits for another try.
    public enum State: String, StoredState {
        case queued, running, done, failed, reused
    }
}

/// One attempt at a chunk: `farm logs`, and the errors in `farm status JOB`.
public struct AttemptStatus: Codable, Sendable, Equatable {
    public var chunk: Int
    public var kind: ChunkKind
    public var attempt: Int
    public var worker: String
    /// running, done, failed, lost (the worker went silent) or cancelled.
    public var outcome: AttemptOutcome
    public var startedAt: String
    public var finishedAt: String?
    public var seconds: Double
    /// A video chunk's frames made, and how fast (absent for an audio block).
    public var framesDone: Int64?
    public var fps: Double?
    /// An audio block's timeline samples made, and the seconds of sound they make (absent for a
    /// video chunk).
    public var samplesDone: Int64?
    public var soundSeconds: Double?
    public var error: String?
    /// The tail of what the worker logged for this attempt, its own lines and FFmpeg's
    /// (`farm logs JOB --chunk N`); absent in a job's whole list, and from workers older than 0.6.
    public var log: [String]? = nil
    /// The job it rendered for: present in a worker's history (`workerAttempts`), where the
    /// attempts come from many jobs; absent in a job's own list.
    public var job: Int64? = nil
}

/// A job with its chunks and its latest errors: `farm status JOB` and each refresh of `farm watch`.
public struct JobDetail: Codable, Sendable, Equatable {
    public var job: JobStatus
    public var chunks: [ChunkStatus]
    /// The five newest failed or lost attempts, newest first.
    public var errors: [AttemptStatus]
    /// Once the job has ended: its video chunks, audio blocks and loudness blocks.
    public var kinds: KindCounts? = nil
}

/// A job's work by kind: what `chunks.total` adds up.
public struct KindCounts: Codable, Sendable, Equatable {
    public var video = 0
    public var audio = 0
    public var loudness = 0

    public init(video: Int = 0, audio: Int = 0, loudness: Int = 0) {
        self.video = video
        self.audio = audio
        self.loudness = loudness
    }
}

/// A worker as the coordinator last heard it.
public struct WorkerStatus: Codable, Sendable, Equatable {
    public struct Holding: Codable, Sendable, Equatable {
        public var job: Int64
        public var kind: ChunkKind
        public var chunk: Int
    }

    public var id: String
    public var host: String
    /// idle, rendering, lost or draining (finishing what it holds, taking nothing new).
    public var state: WorkerState
    public var draining: Bool
    public var cores: Int
    public var slots: Int
    public var version: String
    /// Chunks leased to it now.
    public var current: [Holding]
    public var lastHeartbeat: String
    public var secondsSinceHeartbeat: Double
    /// Attempts it finished and had accepted.
    public var chunksDone: Int
    /// Frame-weighted render speed of its accepted video chunks, over its lifetime.
    public var averageFps: Double?
    /// Frames per second now: its rendering video chunks' speeds over their last few seconds;
    /// nil while it renders none.
    public var currentFps: Double? = nil
    /// The pools it serves (`farm-worker --tags`).
    public var tags: [String] = []
    /// Its kind of render node (`RenderNodeKind`): the 12-digit name, and the line for people.
    public var kind: String = ""
    public var kindSummary: String = ""
}
