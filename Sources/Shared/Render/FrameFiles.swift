import FarmCore
import FarmMedia
import Foundation

/// A numbered-frames output (`ExportSettings.Container.frames`, `out.%06d.png`): every picture
/// of the segments is a whole image file already (the image encoders' packets are the files
/// ffmpeg's `image2` muxer writes), so each packet is written as its frame's file, numbered from
/// `firstNumber`, with no container joined and nothing encoded again. Beside them a manifest
/// of their SHA-256 digests in `sha256sum`'s format (`sha256sum -c out.sha256` checks them).
///
/// The frames are written in a hidden folder beside the output and moved into place once all
/// are in, the manifest last: a failed write leaves none of them.
public enum FrameFiles {
    /// The first frame's number (`FramePattern.firstWritten`).
    public static let firstNumber = FramePattern.firstWritten

    /// The manifest of the frames `destination` names: the pattern's name before its number
    /// (`out.%06d.png` gives `out.sha256`).
    public static func manifest(of destination: URL) -> URL {
        let pattern = FramePattern(path: destination.path)
        var stem = pattern?.prefix ?? destination.deletingPathExtension().lastPathComponent
        while let last = stem.last, ".-_ ".contains(last) { stem.removeLast() }
        return destination.deletingLastPathComponent().appendingPathComponent(
            (stem.isEmpty ? "frames" : stem) + ".sha256")
    }

    /// Writes each video packet of `segments`, in frame order, as the frame file `destination`'s
    /// pattern names; returns how many.
    @discardableResult
    public static func write(segments: [SegmentJoiner.Segment<Chunk>], to destination: URL) throws -> Int {
        guard let pattern = FramePattern(path: destination.path) else {
            throw FFmpegError(operation: destination.path, message: "names no frame number field (such as %06d)")
        }
        try SegmentJoiner.checkContiguous(segments, "segments")
        let manifest = manifest(of: destination)
        let staging = manifest.deletingLastPathComponent().appendingPathComponent(
            ".\(manifest.lastPathComponent).frames-\(getpid())")
        try? FileManager.default.removeItem(at: staging)
        try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: staging) }
        var lines: [String] = []
        let packet = Packet()
        for segment in segments {
            let input = try DemuxedStream(path: segment.url.path, kind: .video)
            var count: Int64 = 0
            while try input.read(into: packet) {
                defer { packet.unref() }
                let name = pattern.fileName(firstNumber + lines.count)
                let digest = SHA256()
                digest.update(packet.bytes)
                try Data(packet.bytes).write(to: staging.appendingPathComponent(name))
                lines.append("\(digest.finish())  \(name)\n")
                count += 1
            }
            guard count == segment.span.frameCount else {
                throw FFmpegError(
                    operation: "write frames of \(segment.url.lastPathComponent)",
                    message: "holds \(count) frames, chunk \(segment.span.index) needs \(segment.span.frameCount)")
            }
        }
        let file = AtomicFile(destination: manifest)
        do {
            try Data(lines.joined().utf8).write(to: file.temporary)
            // Every frame and the manifest on disk before any takes its name: one flush.
            try AtomicFile.syncFileSystem(containing: staging.path)
            for index in lines.indices {
                let name = pattern.fileName(firstNumber + index)
                try SystemCall.retrying("rename", path: pattern.path(firstNumber + index)) {
                    rename(staging.appendingPathComponent(name).path, pattern.path(firstNumber + index))
                }
            }
            try file.commit()
        } catch {
            file.discard()
            throw error
        }
        return lines.count
    }
}
