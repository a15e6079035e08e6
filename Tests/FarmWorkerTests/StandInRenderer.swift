import Dispatch
import FarmCore
import FarmRender
import FarmWire
import FarmWorker
import Foundation

/// Renders without FFmpeg: writes a file of known bytes for each attempt, reports every frame,
/// and fails where told. Keeps what it was asked, for the tests to check.
final class StandInRenderer: ChunkRendering {
    struct Record {
        var rendered: [AttemptKey] = []
        /// Renders that found their cancellation raised, and stopped.
        var cancelled: [AttemptKey] = []
        var discarded: [AttemptKey] = []
        var failures: [AttemptKey: any Error & Sendable] = [:]
        var pause: Pause?
    }

    /// A render that stops part way: it signals `reached` after its first frames, waits for
    /// `resume`, and signals `finished` as it returns. For a render on a real thread.
    struct Pause: Sendable {
        var frames: Int64
        let reached = DispatchSemaphore(value: 0)
        let resume = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
    }

    /// What a cancelled render throws (the compositor's own `RenderCancelled` is its to make).
    struct Cancelled: Error, CustomStringConvertible {
        var description: String { "cancelled" }
    }

    let folder: URL
    /// Each result's size: pieces of 1,000 bytes make three of 2,500.
    let resultBytes: Int
    private let record = Locked(Record())

    init(folder: URL, resultBytes: Int) {
        self.folder = folder
        self.resultBytes = resultBytes
    }

    var current: Record { record.current }

    /// The next render of `key` throws `error`.
    func fail(_ key: AttemptKey, with error: any Error & Sendable) {
        record.withLock { $0.failures[key] = error }
    }

    /// The next render stops after `frames` frames until its pause's `resume` is signalled.
    func pause(after frames: Int64) -> Pause {
        let pause = Pause(frames: frames)
        record.withLock { $0.pause = pause }
        return pause
    }

    /// The bytes a render of `key` writes.
    static func content(of key: AttemptKey, count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(key.chunk) &* 7 &+ key.attempt) }
    }

    static let thumbnail: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3]

    static func block(of key: AttemptKey) -> MediaReads.Block {
        MediaReads.Block(asset: "clip", path: "/media/clip.mov", version: "v1", block: key.chunk, sha256: "00ff")
    }

    func render(
        _ assignment: Assignment, cancellation: StopFlag, progress: @escaping (RenderProgress) -> Void
    ) throws -> AssignmentRenderer.Output {
        let key = assignment.key
        record.withLock { $0.rendered.append(key) }
        if cancellation.isRaised {
            record.withLock { $0.cancelled.append(key) }
            throw Cancelled()
        }
        let frames = assignment.work.end - assignment.work.start
        let pause = record.withLock { record in
            defer { record.pause = nil }
            return record.pause
        }
        defer { pause?.finished.signal() }
        for done in 1...max(frames, 1) {
            progress(RenderProgress(framesDone: done, frameCount: frames, elapsed: .zero))
            if done == pause?.frames {
                pause?.reached.signal()
                pause?.resume.wait()
            }
        }
        if let failure = record.withLock({ $0.failures.removeValue(forKey: key) }) { throw failure }
        let url = folder.appendingPathComponent("chunk-\(key.chunk)-attempt-\(key.attempt).mov")
        try Data(Self.content(of: key, count: resultBytes)).write(to: url)
        return AssignmentRenderer.Output(
            url: url, made: .frames(frames, fps: 25), sampleRate: 48000, mediaBlocks: [Self.block(of: key)],
            mediaCost: MediaReads.Cost(),
            thumbnail: Self.thumbnail)
    }

    func discard(_ key: AttemptKey) {
        record.withLock { $0.discarded.append(key) }
    }
}
