import FarmCore
import FarmRender
import Foundation

/// Where the coordinator keeps one job's accepted results and the uploads still arriving.
public struct JobFolder: Sendable {
    public let url: URL

    public init(dataDirectory: URL, job: Int64) {
        url = dataDirectory.appendingPathComponent("jobs").appendingPathComponent(String(job))
    }

    public var incoming: URL { url.appendingPathComponent("incoming") }

    /// The accepted file of a video chunk or of an audio block.
    public func result(kind: ChunkKind, index: Int) -> URL {
        url.appendingPathComponent(ChunkedRender.fileName(kind: kind, index: index))
    }

    public func result(of item: WorkItem) -> URL { result(kind: item.kind, index: item.index) }

    /// The accepted files of `spans`, for the joiner.
    public func segments<Span: WorkSpan>(_ spans: [Span]) -> [SegmentJoiner.Segment<Span>] {
        SegmentJoiner.segments(spans, in: url)
    }

    /// A video chunk's first frame as a small JPEG, beside its segment (the dashboard's picture).
    public func thumbnail(chunk index: Int) -> URL {
        url.appendingPathComponent(String(format: "thumbnail-%06d.jpg", index))
    }

    /// Keeps a worker's thumbnail of an accepted chunk: a JPEG of at most 256 KiB, or nothing.
    /// A picture for people, so it is written without a sync and a failure is no error.
    public func keepThumbnail(_ base64: String?, chunk index: Int) {
        guard let base64, base64.count <= 350_000, let bytes = Data(base64Encoded: base64),
            bytes.starts(with: [0xFF, 0xD8, 0xFF])
        else { return }
        try? bytes.write(to: thumbnail(chunk: index), options: .atomic)
    }

    /// An output still a worker made (`StillTile`): frame `frame` at `width`, a PNG.
    public func still(frame: Int64, width: Int) -> URL {
        url.appendingPathComponent(String(format: "still-%08lld-%d.png", frame, width))
    }

    /// Keeps the stills a worker made of an accepted chunk, each a PNG or nothing: one that is
    /// missing or damaged is decoded from the segment by the join instead.
    public func keepStills(_ stills: [StillTile]?) {
        for tile in stills ?? [] {
            guard tile.png.count <= 16 << 20, let bytes = Data(base64Encoded: tile.png),
                bytes.starts(with: [0x89, 0x50, 0x4E, 0x47])
            else { continue }
            try? bytes.write(to: still(frame: tile.frame, width: tile.width), options: .atomic)
        }
    }

    /// A video chunk's black frames as its worker measured them (JSON `[FrameRun]`), beside its
    /// segment: the QC report merges them instead of decoding the output.
    public func blackFrames(chunk index: Int) -> URL {
        url.appendingPathComponent(String(format: "black-%06d.json", index))
    }

    /// Keeps a worker's black frames of an accepted chunk. Without a sync: a file lost is
    /// measured again from the segment at the join.
    public func keepBlackFrames(_ runs: [FrameRun]?, chunk index: Int) {
        guard let runs, let data = try? JSONEncoder().encode(runs) else { return }
        try? data.write(to: blackFrames(chunk: index), options: .atomic)
    }

    /// The black frames kept for a chunk, nil when none were (a worker older than this
    /// coordinator, a segment from the cache).
    public func keptBlackFrames(chunk index: Int) -> [FrameRun]? {
        guard let data = try? Data(contentsOf: blackFrames(chunk: index)) else { return nil }
        return try? JSONDecoder().decode([FrameRun].self, from: data)
    }

    /// An attempt's upload in progress; each attempt has its own file.
    public func upload(_ key: AttemptKey) -> URL {
        incoming.appendingPathComponent("chunk-\(key.chunk)-attempt-\(key.attempt).part")
    }

    public func create() throws {
        try FileManager.default.createDirectory(at: incoming, withIntermediateDirectories: true)
    }

    public func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
