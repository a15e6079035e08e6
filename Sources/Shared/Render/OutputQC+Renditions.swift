import FarmCore
import FarmMedia
import Foundation

extension OutputQC {
    /// The QC report of every output a job's export writes at `destination` (`OutputJoin`):
    /// the first rendition measured as `measure` measures an output, each further one read
    /// back for its frames and seams. An HLS package is measured through its playlists, as a
    /// player reads it: the first rendition's and the sound's.
    public static func measureOutputs(
        export: ExportSettings, output: OutputSettings, container: ExportSettings.Container, at destination: URL,
        chunkStarts: [Int64], blockStarts: [Int64], blackFrames: [Bool]?, soundCache: QCSoundCache?,
        measuredSound: MeasuredSound?
    ) throws -> QCReport {
        if container == .frames {
            return try measureFrames(
                at: destination, fps: output.fps, chunkStarts: chunkStarts, blackFrames: blackFrames)
        }
        let encodes = export.encodes(of: output)
        let files: [URL]
        var sound: URL?
        if container == .hls {
            let folder = HLSPackage.folder(of: destination)
            files = encodes.map { folder.appendingPathComponent("\($0.name)/index.m3u8") }
            let audio = folder.appendingPathComponent("audio/index.m3u8")
            sound = FileManager.default.fileExists(atPath: audio.path) ? audio : nil
        } else {
            files = OutputJoin.files(of: export, output: output, container: container, at: destination)
        }
        var report = try measure(
            files[0], fps: output.fps, chunkStarts: chunkStarts, blockStarts: blockStarts,
            target: export.audio.loudness, blackFrames: blackFrames, soundCache: soundCache,
            measuredSound: measuredSound, sound: sound, gridFromFirst: container == .hls)
        if container == .hls {
            report.path = destination.path
            report.container = "hls"
            report.bytes = HLSPackage.bytes(of: destination)
        }
        guard encodes.count > 1 else { return report }
        report.renditions = try zip(encodes, files).dropFirst().map { encode, file in
            let description = try MediaDescription(path: file.path)
            guard let stream = description.streams.first(where: { $0.kind == "video" }) else {
                throw FFmpegError(operation: "QC of \(file.path)", message: "no video stream")
            }
            let (frames, broken, checked) = try videoTimestamps(
                file, fps: output.fps, chunkStarts: chunkStarts, fromFirst: container == .hls)
            let video = Self.video(stream, frames: frames)
            let bytes =
                container == .hls
                ? FolderSize.bytes(of: file.deletingLastPathComponent())
                : (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int64) ?? 0
            return QCReport.Rendition(
                name: encode.name, path: file.path, bytes: bytes, video: video,
                seams: QCReport.Seams(checked: checked, broken: broken))
        }
        return report
    }
}
