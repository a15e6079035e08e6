import FarmCore
import FarmMedia
import Foundation

extension OutputQC {
    /// The QC report of numbered frames (`FrameFiles`): the first frame's stream as FFmpeg
    /// reads it, the frames the manifest lists, each one's file on disk with a size, and every
    /// chunk's first frame among them (its seam); black runs from the workers' measures. The
    /// frames are not decoded again: each file is its packet, written from a verified segment
    /// and hashed as it was written.
    static func measureFrames(at destination: URL, fps: Rational, chunkStarts: [Int64], blackFrames: [Bool]?) throws
        -> QCReport
    {
        guard let pattern = FramePattern(path: destination.path) else {
            throw FFmpegError(operation: "QC of \(destination.path)", message: "names no frame number field")
        }
        let manifest = FrameFiles.manifest(of: destination)
        let listed = try String(contentsOf: manifest, encoding: .utf8).split(separator: "\n").compactMap {
            $0.split(separator: " ", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) }
        }
        var bytes: Int64 = 0
        var missing: [String] = []
        for name in listed {
            let size = (try? FileManager.default.attributesOfItem(atPath: pattern.folder + "/" + name)[.size]) as? Int64
            if let size { bytes += size } else { missing.append(name) }
        }
        let first = pattern.path(FrameFiles.firstNumber)
        guard let stream = try MediaDescription(path: first).streams.first(where: { $0.kind == "video" }) else {
            throw FFmpegError(operation: "QC of \(first)", message: "no picture")
        }
        var video = Self.video(stream, frames: Int64(listed.count))
        video.frameRate = "\(fps.numerator)/\(fps.denominator)"
        if let blackFrames { video.blacks = blackRuns(blackFrames, fps: fps) }
        let names = Set(listed)
        let broken =
            missing.map { "\($0): listed in \(manifest.lastPathComponent), not on disk" }
            + chunkStarts.compactMap { start in
                let name = pattern.fileName(FrameFiles.firstNumber + Int(start - (chunkStarts.first ?? 0)))
                return names.contains(name) ? nil : "frame \(start): \(name) is not in \(manifest.lastPathComponent)"
            }
        let seconds = Rational(Int64(listed.count)) / fps
        return QCReport(
            path: destination.path, bytes: bytes, container: "frames",
            duration: String(format: "%.3f", seconds.seconds),
            video: video, audio: nil, seams: QCReport.Seams(checked: chunkStarts.count, broken: broken), target: nil,
            misses: [])
    }
}
