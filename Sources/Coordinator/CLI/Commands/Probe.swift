import ArgumentParser
import FarmMedia
import Foundation

struct Probe: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show what media files hold, stream by stream, as the farm reads them.",
        discussion: """
            For each file: its container, start and duration, and every stream's codec, start on the \
            container's timeline, and for pictures size, pixel format, bit depth, range, matrix, \
            primaries, transfer, sample aspect ratio, rotation, field order and frame rate; for sound \
            sample rate, channels, layout and sample format. The names are ffprobe's. `farm validate` \
            says which of these the render converts (HDR to SDR, 10 to 8 bits, 5.1 to stereo, \
            interlaced, anamorphic). A file that cannot be read is named with the reason, and the exit \
            code is 2.

            Examples:
              farm probe clip.mts
              farm probe footage/*.mov --json | jq '.[].streams[] | select(.kind == "video") | .colorTransfer'
            """
    )

    @Argument(help: "Media files to read.")
    var media: [String]

    @Flag(help: "One JSON array of every file's streams (field names in docs/cli.md).")
    var json = false

    func run() throws {
        FFmpegLog.configure(verbose: false)
        var described: [MediaDescription] = []
        var failed = false
        for path in media {
            do {
                described.append(try MediaDescription(path: path))
            } catch let error as FFmpegError {
                FileHandle.standardError.writeUnlessClosed(Data("\(error.operation): \(error.message)\n".utf8))
                failed = true
            }
        }
        if json {
            try JSONOutput.print(described)
        } else {
            for file in described { print(Self.text(file)) }
        }
        if failed { throw FarmExit.badInput }
    }

    static func text(_ file: MediaDescription) -> String {
        var lines = ["\(file.path): \(file.container), start \(file.startTime ?? "?") s, \(file.duration ?? "?") s"]
        for stream in file.streams {
            var parts = ["  #\(stream.index) \(stream.kind) \(stream.codec)"]
            if let profile = stream.profile { parts.append("(\(profile))") }
            parts.append("start \(stream.startTime ?? "?") s")
            if stream.kind == "video" {
                parts.append("\(stream.width ?? 0)x\(stream.height ?? 0)")
                parts.append(
                    [stream.pixelFormat, stream.bitDepth.map { "\($0)-bit" }].compactMap { $0 }.joined(separator: " "))
                // Untagged fields are left out.
                for (name, value) in [
                    ("range", stream.colorRange), ("matrix", stream.colorSpace), ("primaries", stream.colorPrimaries),
                    ("transfer", stream.colorTransfer),
                ] {
                    if let value { parts.append("\(name) \(value)") }
                }
                if let aspect = stream.sampleAspectRatio { parts.append("SAR \(aspect)") }
                if stream.mirrored == true { parts.append("mirrored") }
                if let rotation = stream.rotation, rotation != 0 { parts.append("turned \(rotation)°") }
                if let order = stream.fieldOrder { parts.append(order) }
                if let rate = stream.frameRate { parts.append("\(rate) fps") }
            } else if stream.kind == "audio" {
                parts.append("\(stream.sampleRate ?? 0) Hz")
                parts.append(stream.channelLayout ?? "\(stream.channels ?? 0) channels")
                if let format = stream.sampleFormat { parts.append(format) }
            }
            lines.append(parts.joined(separator: ", ").replacingOccurrences(of: ", (", with: " ("))
        }
        return lines.joined(separator: "\n")
    }
}
