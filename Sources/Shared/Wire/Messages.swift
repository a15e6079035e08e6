import FarmCore
import Foundation

/// Everything a worker needs to render one chunk, with no access to the database.
public struct Assignment: Codable, Sendable, Hashable {
    public var key: AttemptKey
    public var job: Int64
    /// The span travels as its kind, index and bounds in the kind's unit; `work` reads it typed.
    private var kind: ChunkKind
    private var index: Int
    private var start: Int64
    private var end: Int64
    /// The project document exactly as submitted.
    public var projectText: String
    public var projectFile: String
    /// Where the submitter's relative asset paths pointed; a worker's `--media-root` overrides it.
    public var mediaRoot: String
    /// The version of each asset the job was submitted with. Absent from coordinators older
    /// than 0.6.
    public var mediaPins: [String: MediaPin]?
    /// The programme's gain and limiter ceiling, for an audio block of a job with a loudness
    /// target (measured by its loudness blocks first).
    public var programmeGain: ProgrammeGain?

    public init(
        key: AttemptKey, job: Int64, work: WorkItem, projectText: String, projectFile: String, mediaRoot: String,
        mediaPins: [String: MediaPin], programmeGain: ProgrammeGain? = nil
    ) {
        self.programmeGain = programmeGain
        self.key = key
        self.job = job
        kind = work.kind
        index = work.index
        start = work.start
        end = work.end
        self.projectText = projectText
        self.projectFile = projectFile
        self.mediaRoot = mediaRoot
        self.mediaPins = mediaPins
    }

    /// A video chunk in output frames or an audio block in timeline samples.
    public var work: WorkItem { WorkItem(kind: kind, index: index, start: start, end: end) }
}

public struct Heartbeat: Codable, Sendable, Hashable {
    public var worker: WorkerInfo
    /// Attempts the worker holds: rendering, uploading or waiting to start.
    public var running: [AttemptKey]
    /// Those of `running` not started yet; a draining worker gives them back. Absent from
    /// workers older than 0.4.
    public var waiting: [AttemptKey]?
    /// Those of `running` rendered and uploading: they take no render slot. Absent from
    /// workers older than 0.5.
    public var uploading: [AttemptKey]?

    public init(worker: WorkerInfo, running: [AttemptKey], waiting: [AttemptKey]?, uploading: [AttemptKey]?) {
        self.worker = worker
        self.running = running
        self.waiting = waiting
        self.uploading = uploading
    }
}

public struct ProgressReport: Codable, Sendable, Hashable {
    public var key: AttemptKey
    public var frames: Int64
    public var fps: Double

    public init(key: AttemptKey, frames: Int64, fps: Double) {
        self.key = key
        self.frames = frames
        self.fps = fps
    }
}

/// One bounded piece of an encoded result; its bytes travel in the message's payload frame.
public struct UploadPiece: Codable, Sendable, Hashable {
    public var key: AttemptKey
    public var offset: Int64
    public var total: Int64

    public init(key: AttemptKey, offset: Int64, total: Int64) {
        self.key = key
        self.offset = offset
        self.total = total
    }
}

public struct UploadAck: Codable, Sendable, Hashable {
    public var key: AttemptKey
    /// Bytes the coordinator holds; the worker continues from here.
    public var received: Int64

    public init(key: AttemptKey, received: Int64) {
        self.key = key
        self.received = received
    }
}

public struct ChunkDone: Codable, Sendable, Hashable {
    public var key: AttemptKey
    public var bytes: Int64
    /// Hex SHA-256 of the whole file.
    public var sha256: String
    /// A video chunk's frames and their rate; 0 for an audio block.
    private var frames: Int64
    private var fps: Double
    /// An audio block's timeline samples. Absent from older workers, which sent them as
    /// `frames` (read as samples for an audio block, see `made(by:)`).
    private var samples: Int64?
    /// The digest of every block of pinned media the render read, for the coordinator to hold
    /// against every other render's (`MediaReads`). Absent from workers older than 0.7.
    public var mediaBlocks: [MediaReads.Block]?
    /// A video chunk's first frame as a small JPEG, base64: the dashboard's picture of it.
    /// Absent from workers older than 0.9, and when the worker could not make one.
    public var thumbnail: String?
    /// The tail of what the worker logged for the attempt (`AttemptLog`). Absent from workers
    /// older than 0.6.
    public var log: [String]?
    /// A video chunk's black frames (timeline frames), measured on the pictures it encoded,
    /// for the QC report. Absent from older workers: the join then decodes the segment.
    public var blackFrames: [FrameRun]?
    /// How long the attempt waited, rendered and uploaded on the worker (`farm trace`).
    /// Absent from older workers.
    public var phases: WorkerPhases?
    /// The output's thumbnails (`export.thumbnails`) this chunk holds, made by the worker from
    /// the segment it encoded. Absent from older workers: the join then decodes the segment.
    public var stills: [StillTile]?

    public init(
        key: AttemptKey, bytes: Int64, sha256: String, made: WorkMade, mediaBlocks: [MediaReads.Block] = [],
        thumbnail: [UInt8]? = nil, log: [String] = [], blackFrames: [FrameRun]? = nil, phases: WorkerPhases? = nil
    ) {
        self.log = log
        self.blackFrames = blackFrames
        self.phases = phases
        self.key = key
        self.bytes = bytes
        self.sha256 = sha256
        frames = made.frames
        fps = made.fps ?? 0
        if case .samples(let count) = made { samples = count }
        self.mediaBlocks = mediaBlocks
        self.thumbnail = thumbnail.map { Data($0).base64EncodedString() }
    }
}

extension ChunkDone {
    /// What the attempt made, in the unit of its item's `kind`.
    public func made(by kind: ChunkKind) -> WorkMade {
        switch kind {
        case .video: .frames(frames, fps: fps)
        case .audio, .loudness: .samples(samples ?? frames)
        }
    }
}

/// An attempt's time on its worker, in seconds of the worker's own clock: from the
/// assignment's arrival to its render's start (`queued`), the render (`rendering`), and from
/// the render's end to `done` (`uploading`). Only spans travel, never clock readings, so no two
/// machines' clocks need agree: the coordinator places them back from when `done` arrived.
public struct WorkerPhases: Codable, Sendable, Hashable {
    public var queued: Double
    public var rendering: Double
    public var uploading: Double

    public init(queued: Double, rendering: Double, uploading: Double) {
        self.queued = queued
        self.rendering = rendering
        self.uploading = uploading
    }
}

public struct ChunkFailed: Codable, Sendable, Hashable {
    public var key: AttemptKey
    public var error: String
    /// Rendering again cannot help (the media changed since submission): fail the job now.
    /// Absent from workers older than 0.6.
    public var fatal: Bool?
    /// The tail of what the worker logged for the attempt (`AttemptLog`). Absent from workers
    /// older than 0.6.
    public var log: [String]?
    /// The pinned assets the render found as copies (`FailedOnCopies`), for the coordinator to
    /// hold against their pins first. Absent when none, and from workers older than 0.6.
    public var copies: [String]?

    public init(key: AttemptKey, error: String, fatal: Bool = false, log: [String] = [], copies: [String] = []) {
        self.log = log
        self.key = key
        self.error = error
        self.fatal = fatal
        self.copies = copies.isEmpty ? nil : copies
    }
}

public struct Verdict: Codable, Sendable, Hashable {
    public var key: AttemptKey
    public var reason: String

    public init(key: AttemptKey, reason: String) {
        self.key = key
        self.reason = reason
    }

    /// The fence's answer to an attempt that is no longer the chunk's current one.
    public static func stale(_ key: AttemptKey) -> Verdict {
        Verdict(key: key, reason: "attempt \(key.attempt) is no longer current")
    }
}
