import FarmCore
import FarmWire
import Foundation

/// Messages of every type: fixed ones with every optional field both present and absent, and
/// random ones with any value the bounds allow (`WireBounds`).
enum MessageSamples {
    static let key = AttemptKey(chunk: 42, attempt: 3)
    static let worker = WorkerInfo(id: "w1@render-01", host: "render-01", cores: 16, slots: 2, version: "0.9.0")
    static let stamp = FileStamp(size: 1 << 33, modified: 1_700_000_000_123_456_789, changed: -5, inode: 77, device: 9)
    static let block = MediaReads.Block(
        asset: "clip", path: "/mnt/media/clip.mov", version: stamp.version, block: 12, sha256: "ab12", copy: true)

    /// The wire's name of each type, written out so a new case must be added here to compile.
    static func type(of message: WireMessage) -> String {
        switch message {
        case .hello: "hello"
        case .welcome: "welcome"
        case .heartbeat: "heartbeat"
        case .coordinatorHeartbeat: "coordinator-heartbeat"
        case .assign: "assign"
        case .progress: "progress"
        case .piece: "piece"
        case .pieceAck: "piece-ack"
        case .done: "done"
        case .failed: "failed"
        case .accepted: "accepted"
        case .rejected: "rejected"
        case .cancel: "cancel"
        case .refused: "refused"
        }
    }

    static let typeNames: Set<String> = [
        "hello", "welcome", "heartbeat", "coordinator-heartbeat", "assign", "progress", "piece", "piece-ack", "done",
        "failed", "accepted", "rejected", "cancel", "refused",
    ]

    static var every: [WireMessage] {
        var assignment = Assignment(
            key: key, job: 7, work: .video(Chunk(index: 3, start: 90, end: 120)),
            projectText: #"{"tracks": [], "note": "é ✓ \"quoted\" \u{0001}"}"#, projectFile: "/projects/ad.json",
            mediaRoot: "/mnt/media", mediaPins: ["clip": MediaPin(stamp)])
        var older = Assignment(
            key: key, job: 7, work: .audio(AudioBlock(index: 1, start: 480_256, end: 960_512)),
            projectText: assignment.projectText, projectFile: assignment.projectFile, mediaRoot: assignment.mediaRoot,
            mediaPins: [:])
        older.mediaPins = nil
        var pinWithoutStamp = MediaPin(stamp)
        pinWithoutStamp.stamp = nil
        assignment.mediaPins?["still"] = pinWithoutStamp
        var oldDone = ChunkDone(key: key, bytes: 0, sha256: "", made: .frames(0, fps: 0))
        oldDone.mediaBlocks = nil
        return [
            .hello(worker),
            .welcome,
            .heartbeat(
                Heartbeat(
                    worker: worker, running: [key, AttemptKey(chunk: 1, attempt: 1)], waiting: [key], uploading: [])),
            .heartbeat(Heartbeat(worker: worker, running: [], waiting: nil, uploading: nil)),
            .coordinatorHeartbeat,
            .assign(assignment),
            .assign(older),
            .progress(ProgressReport(key: key, frames: 17, fps: 23.976)),
            .piece(UploadPiece(key: key, offset: 1 << 20, total: 3 << 20), Array(repeating: 0xA5, count: 1000)),
            .piece(UploadPiece(key: key, offset: 0, total: 0), []),
            .pieceAck(UploadAck(key: key, received: 1 << 20)),
            .done(
                ChunkDone(
                    key: key, bytes: 3 << 20, sha256: String(repeating: "0f", count: 32), made: .frames(30, fps: 61.5),
                    mediaBlocks: [
                        block, MediaReads.Block(asset: "a", path: "/a", version: "v", block: 0, sha256: "cd"),
                    ],
                    thumbnail: [0xFF, 0xD8, 0xFF, 0xE0, 0, 1, 2])),
            .done(oldDone),
            .done(ChunkDone(key: key, bytes: 1 << 16, sha256: "ab", made: .samples(480_256))),
            .failed(ChunkFailed(key: key, error: "assets.clip: media changed", fatal: true)),
            .failed(ChunkFailed(key: key, error: "", log: ["   0.00 info rendering", "   0.20 error ffmpeg: é"])),
            .accepted(Verdict(key: key, reason: "verified")),
            .rejected(Verdict.stale(key)),
            .cancel(Verdict(key: key, reason: "job stopped")),
            .refused(Refusal(reason: "peer speaks \"farm/2\"")),
            .hello(
                WorkerInfo(
                    id: "w2", host: "h", cores: 1, slots: 1, version: "0.6.0", tags: ["4k", "site-a"],
                    kind: RenderNodeKind(farm: "0.6.0", renderer: 4, ffmpeg: "libavcodec 59", x264: "AVX2", fonts: "ab")
                )),
        ]
    }

    // MARK: Random messages

    static func random(using random: inout SeededGenerator) -> WireMessage {
        let key = randomKey(&random)
        switch Int.random(in: 0..<14, using: &random) {
        case 0: return .hello(randomWorker(&random))
        case 1: return .welcome
        case 2:
            return .heartbeat(
                Heartbeat(
                    worker: randomWorker(&random), running: keys(&random), waiting: optional(&random) { keys(&$0) },
                    uploading: optional(&random) { keys(&$0) }))
        case 3: return .coordinatorHeartbeat
        case 4:
            let start = Int64.random(in: 0...Int64.max, using: &random)
            var assignment = Assignment(
                key: key, job: .random(in: .min ... .max, using: &random),
                work: WorkItem(
                    kind: Bool.random(using: &random) ? .video : .audio,
                    index: .random(in: .min ... .max, using: &random),
                    start: start, end: .random(in: start...Int64.max, using: &random)),
                projectText: text(&random), projectFile: text(&random), mediaRoot: text(&random),
                mediaPins: [text(&random): MediaPin(randomStamp(&random))])
            if Bool.random(using: &random) { assignment.mediaPins = nil }
            return .assign(assignment)
        case 5:
            return .progress(
                ProgressReport(key: key, frames: .random(in: .min ... .max, using: &random), fps: number(&random)))
        case 6:
            let payload = bytes(&random, upTo: 64)
            let offset = Int64.random(in: 0...(Int64.max - Int64(payload.count)), using: &random)
            let total = Int64.random(in: (offset + Int64(payload.count))...Int64.max, using: &random)
            return .piece(UploadPiece(key: key, offset: offset, total: total), payload)
        case 7: return .pieceAck(UploadAck(key: key, received: .random(in: 0...Int64.max, using: &random)))
        case 8:
            var done = ChunkDone(
                key: key, bytes: .random(in: .min ... .max, using: &random), sha256: text(&random),
                made: Bool.random(using: &random)
                    ? .frames(.random(in: .min ... .max, using: &random), fps: number(&random))
                    : .samples(.random(in: .min ... .max, using: &random)),
                mediaBlocks: (0..<Int.random(in: 0...3, using: &random)).map { _ in randomBlock(&random) },
                thumbnail: optional(&random) { bytes(&$0, upTo: 48) })
            if Bool.random(using: &random) { done.mediaBlocks = nil }
            return .done(done)
        case 9:
            return .failed(ChunkFailed(key: key, error: text(&random), fatal: Bool.random(using: &random)))
        case 10: return .accepted(Verdict(key: key, reason: text(&random)))
        case 11: return .rejected(Verdict(key: key, reason: text(&random)))
        case 12: return .refused(Refusal(reason: text(&random)))
        default: return .cancel(Verdict(key: key, reason: text(&random)))
        }
    }

    static func randomKey(_ random: inout SeededGenerator) -> AttemptKey {
        AttemptKey(
            chunk: .random(in: .min ... .max, using: &random), attempt: .random(in: .min ... .max, using: &random))
    }

    static func randomWorker(_ random: inout SeededGenerator) -> WorkerInfo {
        WorkerInfo(
            id: text(&random), host: text(&random), cores: .random(in: WireBounds.cores, using: &random),
            slots: .random(in: WireBounds.slots, using: &random), version: text(&random))
    }

    static func randomStamp(_ random: inout SeededGenerator) -> FileStamp {
        FileStamp(
            size: .random(in: .min ... .max, using: &random), modified: .random(in: .min ... .max, using: &random),
            changed: .random(in: .min ... .max, using: &random), inode: .random(in: .min ... .max, using: &random),
            device: .random(in: .min ... .max, using: &random))
    }

    static func randomBlock(_ random: inout SeededGenerator) -> MediaReads.Block {
        MediaReads.Block(
            asset: text(&random), path: text(&random), version: text(&random),
            block: .random(in: WireBounds.mediaBlocks, using: &random), sha256: text(&random),
            copy: Bool.random(using: &random))
    }

    static func keys(_ random: inout SeededGenerator) -> [AttemptKey] {
        (0..<Int.random(in: 0...4, using: &random)).map { _ in randomKey(&random) }
    }

    /// Text with what JSON must escape or carry whole: quotes, backslashes, controls, NUL,
    /// accents, emoji and a lone combining mark.
    static func text(_ random: inout SeededGenerator) -> String {
        let pieces = [
            "a", "Z", "0", " ", "\"", "\\", "/", "\n", "\t", "\u{0}", "\u{1F}",
            "é", "✓", "🎬", "\u{301}", "{", "]",
        ]
        return String(
            (0..<Int.random(in: 0...12, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined())
    }

    static func bytes(_ random: inout SeededGenerator, upTo count: Int) -> [UInt8] {
        (0..<Int.random(in: 0...count, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
    }

    /// Any finite double, from subnormals to the largest: JSON carries no infinity or NaN.
    static func number(_ random: inout SeededGenerator) -> Double {
        while true {
            let value = Double(bitPattern: random.next())
            if value.isFinite { return value }
        }
    }

    static func optional<T>(_ random: inout SeededGenerator, _ make: (inout SeededGenerator) -> T) -> T? {
        Bool.random(using: &random) ? make(&random) : nil
    }
}
