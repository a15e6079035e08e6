import FarmCore
import FarmMedia
import Foundation

/// A numbered-frames output (`ExportSettings.Container.frames`, `out.%06d.png`): every picture
/// of the segments is a whole image file already (the image encoders' packets are the files
/// ffmpeg's `image2` muxer writes), so each packet is written as its frame's file, numbered from
/// `firstNumber`, with no container joined and nothing encoded again. Beside them a manifest
/// of their SHA-256 digests in `sha256sum`'s format (`sha256sum -c out.sha256` checks them).
///
/// The frames wait in a hidden staging folder beside the output, each chunk's written as soon
/// as it is accepted (`stage`) with a note of its frames last, and take their names once all
/// are in, the manifest last (`write`): a failed job leaves none of them, and the end of a job
/// is a flush and a rename per frame, not a copy of every frame.
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

    /// The staging folder beside `destination` of one writer (`owner`: a job, or a process
    /// rendering alone): on the output's own file system, so a frame's last step is a rename.
    public static func staging(of destination: URL, owner: String) -> URL {
        let manifest = manifest(of: destination)
        return manifest.deletingLastPathComponent().appendingPathComponent(
            ".\(manifest.lastPathComponent).frames-\(owner)")
    }

    /// Writes the frames of one segment into `owner`'s staging folder, numbered from the
    /// timeline's frame `origin`, then the note of their names and digests that marks the
    /// chunk staged; returns the note's lines.
    @discardableResult
    public static func stage(
        _ segment: SegmentJoiner.Segment<Chunk>, origin: Int64, of destination: URL, owner: String
    ) throws -> [String] {
        let pattern = try pattern(of: destination)
        let folder = staging(of: destination, owner: owner)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // A chunk staged again (a render repeated) is not whole until its new note is in.
        let note = note(of: segment.span, in: folder)
        try? FileManager.default.removeItem(at: note)
        var lines: [String] = []
        let input = try DemuxedStream(path: segment.url.path, kind: .video)
        let packet = Packet()
        while try input.read(into: packet) {
            defer { packet.unref() }
            // Never over the next chunk's frames.
            guard lines.count < segment.span.frameCount else { break }
            let name = pattern.fileName(number(of: segment.span.start + Int64(lines.count), origin: origin))
            let digest = SHA256()
            digest.update(packet.bytes)
            try Data(packet.bytes).write(to: folder.appendingPathComponent(name))
            lines.append("\(digest.finish())  \(name)\n")
        }
        guard lines.count == segment.span.frameCount else {
            throw FFmpegError(
                operation: "write frames of \(segment.url.lastPathComponent)",
                message: "holds \(lines.count) frames, chunk \(segment.span.index) needs \(segment.span.frameCount)")
        }
        // The frames on disk before the note that vouches for them: one flush per chunk, on the
        // staging thread, so the note survives a power cut only with its frames.
        try AtomicFile.syncFileSystem(containing: folder.path)
        let file = AtomicFile(destination: note)
        try Data(lines.joined().utf8).write(to: file.temporary)
        try file.commit()
        return lines
    }

    /// How many chunks `owner` has staged whole.
    public static func stagedChunks(of destination: URL, owner: String) -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: staging(of: destination, owner: owner).path))
        return (names ?? []).filter { $0.hasPrefix(".chunk-") && $0.hasSuffix(".sha256") }.count
    }

    /// Puts every frame of `segments` in place: the chunks `owner` staged already are taken
    /// as they are, the others staged now; then one flush, a rename per frame and the manifest.
    /// With no `owner`, this process stages them all, in a folder of its own. Returns how many.
    @discardableResult
    public static func write(
        segments: [SegmentJoiner.Segment<Chunk>], to destination: URL, owner: String? = nil
    ) throws -> Int {
        let pattern = try pattern(of: destination)
        try SegmentJoiner.checkContiguous(segments, "segments")
        let alone = owner == nil
        let owner = owner ?? "\(getpid())"
        let folder = staging(of: destination, owner: owner)
        if alone { try? FileManager.default.removeItem(at: folder) }
        defer { try? FileManager.default.removeItem(at: folder) }
        let origin = segments.first?.span.start ?? 0
        var lines: [String] = []
        for segment in segments {
            lines +=
                try staged(segment.span, origin: origin, pattern: pattern, in: folder)
                ?? stage(segment, origin: origin, of: destination, owner: owner)
        }
        let file = AtomicFile(destination: manifest(of: destination))
        do {
            try Data(lines.joined().utf8).write(to: file.temporary)
            // Every frame and the manifest on disk before any takes its name: one flush.
            try AtomicFile.syncFileSystem(containing: folder.path)
            for index in lines.indices {
                let name = pattern.fileName(firstNumber + index)
                try SystemCall.retrying("rename", path: pattern.path(firstNumber + index)) {
                    rename(folder.appendingPathComponent(name).path, pattern.path(firstNumber + index))
                }
            }
            try file.commit()
        } catch {
            file.discard()
            throw error
        }
        return lines.count
    }

    /// The lines of a chunk's note when it was staged whole under these numbers and every frame
    /// it names is still in the folder (a join cut short may have moved some out); nil otherwise.
    private static func staged(_ span: Chunk, origin: Int64, pattern: FramePattern, in folder: URL) -> [String]? {
        guard let text = try? String(contentsOf: note(of: span, in: folder), encoding: .utf8) else { return nil }
        let lines = text.split(separator: "\n").map { "\($0)\n" }
        let names = lines.map { line in line.range(of: "  ").map { String(line[$0.upperBound...].dropLast()) } ?? "" }
        let expected = (0..<span.frameCount).map { pattern.fileName(number(of: span.start + $0, origin: origin)) }
        guard names == expected else { return nil }
        let present = names.allSatisfy { access(folder.appendingPathComponent($0).path, F_OK) == 0 }
        return present ? lines : nil
    }

    private static func note(of span: Chunk, in folder: URL) -> URL {
        folder.appendingPathComponent(String(format: ".chunk-%08d.sha256", span.index))
    }

    private static func number(of frame: Int64, origin: Int64) -> Int { firstNumber + Int(frame - origin) }

    private static func pattern(of destination: URL) throws -> FramePattern {
        guard let pattern = FramePattern(path: destination.path) else {
            throw FFmpegError(operation: destination.path, message: "names no frame number field (such as %06d)")
        }
        return pattern
    }
}
