import ArgumentParser
import Foundation
import Shared

struct Render: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Render a project to a video file.",
        discussion: """
            The container comes from the output's extension (.mp4, .mov, .mkv), else from the
            project's export.container. The file appears only when complete: it is written under a
            temporary name, synced to disk and renamed.

            Progress goes to standard error: a bar on a terminal, plain lines otherwise. The last
            line on standard output is a summary.

            Exit codes: 0 done, 2 bad project or media (nothing written), 1 rendering failed.

            Examples:
              farm render project.json -o final.mp4 --local
              farm render project.json -o shot.mov --local --frames 120..240
            """
    )

    @OptionGroup var options: ProjectOptions

    @Option(name: [.short, .long], help: "The file to write.")
    var output: String

    @Flag(name: .long, help: "Render in this process (the only mode until the coordinator exists).")
    var local = false

    @Option(name: .long, help: "Render only output frames A..B (A included, B excluded), e.g. 0..300.")
    var frames: FrameRange?

    @Option(name: .long, help: "Encoder threads (0: as many as the encoder likes).")
    var threads = 0

    @Option(name: .long, help: "Decoder threads per video source (0: one per core).")
    var decoderThreads = 0

    func validate() throws {
        if threads < 0 { throw ValidationError("--threads must be >= 0 (got \(threads))") }
        if decoderThreads < 0 { throw ValidationError("--decoder-threads must be >= 0 (got \(decoderThreads))") }
    }

    func run() throws {
        let loaded = try options.load()
        let project = loaded.project
        let destination = URL(fileURLWithPath: output)
        let container = try containerForOutput(project: project)
        let total = project.frameCount
        let range = frames.map { $0.start..<$0.end } ?? 0..<total
        if range.lowerBound < 0 || range.upperBound > total || range.isEmpty {
            FileHandle.standardError.write(
                Data("--frames \(range.lowerBound)..\(range.upperBound) is outside the timeline's 0..\(total)\n".utf8))
            throw ExitCode(2)
        }
        var configuration = TimelineRenderer.Configuration()
        configuration.encoderThreads = threads
        // Source decoding runs beside compositing and encoding; decoded pictures are identical
        // whatever the thread count, so this changes speed only.
        configuration.decoderThreads = decoderThreads
        configuration.container = container
        let renderer = TimelineRenderer(loaded: loaded, configuration: configuration)
        let meter = ProgressMeter()
        do {
            try renderer.render(frames: range, to: destination) { meter.update($0) }
        } catch {
            meter.finish()
            FileHandle.standardError.write(Data("\(output): rendering failed: \(error)\n".utf8))
            throw ExitCode(1)
        }
        meter.finish()
        let bytes = (try? FileManager.default.attributesOfItem(atPath: destination.path)[.size] as? Int) ?? 0
        let seconds = Rational(Int64(range.count)) / project.output.fps
        print(
            "\(destination.path): \(range.count) frames, \(project.output.width)x\(project.output.height) "
                + "@ \(project.output.fps) fps, \(Format.duration(seconds)), \(project.export.video.codec.rawValue)"
                + " + \(project.export.audio.codec.rawValue), \(Format.bytes(bytes)), rendered in "
                + "\(Format.seconds(meter.elapsed)) (\(Format.rate(Double(range.count) / max(meter.elapsed, 0.001))) fps)")
    }

    /// The output's extension picks the container; it must agree with the export codecs.
    private func containerForOutput(project: Project) throws -> ExportSettings.Container {
        let ext = URL(fileURLWithPath: output).pathExtension.lowercased()
        let container = ExportSettings.Container(rawValue: ext) ?? project.export.container
        let problems = project.export.codecsUnsupported(by: container).map { key, codec in
            "\(options.project): export.\(key): \(codec) needs a .mov or .mkv output (got \(output))"
        }
        if !problems.isEmpty {
            FileHandle.standardError.write(Data((problems.joined(separator: "\n") + "\n").utf8))
            throw ExitCode(2)
        }
        return container
    }
}

/// `A..B`: output frames A (included) to B (excluded).
struct FrameRange: ExpressibleByArgument {
    var start: Int64
    var end: Int64

    init?(argument: String) {
        let parts = argument.components(separatedBy: "..")
        guard parts.count == 2, let start = Int64(parts[0]), let end = Int64(parts[1]), start < end else { return nil }
        self.start = start
        self.end = end
    }
}
