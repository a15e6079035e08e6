import FarmCore

/// The numbers a decoded message may carry. A count, an offset or an index that its receiver
/// sizes work by or computes with is refused here, so no peer can make the other side
/// allocate, loop or overflow on a number it made up. Unchecked, a hello claiming 2^31 slots
/// stopped the coordinator (a 32-bit column refused it, and the error ended `farm serve`), and
/// fewer made every claim build a row per slot; a piece at offset `Int64.max` would trap the
/// intake's sum, a media block of 2^62 the verifier's seek, and an acknowledgement of -1 bytes
/// the worker's.
public enum WireBounds {
    /// Render slots one worker may have (`farm-worker --slots`): each is a row of every claim.
    public static let slots = 0...1024
    /// The farm's database keeps a worker's cores as a 32-bit integer.
    public static let cores = 0...Int(Int32.max)
    /// Block indices whose byte offset (`index * MediaReads.blockSize`) fits in 64 bits.
    public static let mediaBlocks = 0...(Int64.max / Int64(MediaReads.blockSize))
    /// The largest frame the coordinator's socket takes from a peer (ZMQ_MAXMSGSIZE): a
    /// worker's largest is an upload piece of 1 MiB, or a `done` listing a long chunk's media
    /// blocks (a few hundred KiB). A peer announcing more is disconnected before libzmq reserves
    /// the memory the announcement asks for.
    public static let frameBytes: Int64 = 64 << 20
}

extension WireMessage {
    /// What in this message lies outside `WireBounds`, or nil.
    var outOfBounds: String? {
        switch self {
        case .hello(let info):
            return Self.problem(in: info)
        case .heartbeat(let beat):
            return Self.problem(in: beat.worker)
        case .assign(let assignment):
            let work = assignment.work
            guard work.start >= 0, work.end >= work.start else {
                return "\(work.name) spans [\(work.start), \(work.end)), not a range from 0 on"
            }
            return nil
        case .piece(let piece, let bytes):
            // Written so that no sum overflows: offset + payload <= total.
            guard piece.offset >= 0, piece.total >= piece.offset, Int64(bytes.count) <= piece.total - piece.offset
            else {
                return "a piece of \(bytes.count) bytes at offset \(piece.offset) does not fit in \(piece.total) bytes"
            }
            return nil
        case .pieceAck(let ack):
            return ack.received >= 0 ? nil : "received \(ack.received) bytes"
        case .done(let done):
            for block in done.mediaBlocks ?? [] where !WireBounds.mediaBlocks.contains(block.block) {
                return "media block \(block.block) is outside \(WireBounds.mediaBlocks)"
            }
            return Self.problem(inLog: done.log)
        case .failed(let failed):
            return Self.problem(inLog: failed.log)
        case .welcome, .coordinatorHeartbeat, .progress, .accepted, .rejected, .cancel, .refused:
            return nil
        }
    }

    /// A log tail longer than a worker keeps (`AttemptLog`) is a peer's invention.
    private static func problem(inLog log: [String]?) -> String? {
        guard let log else { return nil }
        if log.count > AttemptLog.mostLines { return "a log of \(log.count) lines; at most \(AttemptLog.mostLines)" }
        let bytes = log.reduce(0) { $0 + $1.utf8.count }
        if bytes > AttemptLog.mostBytes { return "a log of \(bytes) bytes; at most \(AttemptLog.mostBytes)" }
        return nil
    }

    private static func problem(in info: WorkerInfo) -> String? {
        if !WireBounds.slots.contains(info.slots) { return "slots \(info.slots) is outside \(WireBounds.slots)" }
        if !WireBounds.cores.contains(info.cores) { return "cores \(info.cores) is outside \(WireBounds.cores)" }
        let tags = info.tags ?? []
        if tags.count > PoolTags.most { return "\(tags.count) tags; at most \(PoolTags.most)" }
        for tag in tags { if let problem = PoolTags.problem(in: tag) { return "tag \"\(tag.prefix(80))\" \(problem)" } }
        if let kind = info.kind,
            [kind.farm, kind.ffmpeg, kind.x264, kind.fonts].contains(where: { $0.utf8.count > 1024 })
        {
            return "a kind's field is longer than 1024 bytes"
        }
        return nil
    }
}
