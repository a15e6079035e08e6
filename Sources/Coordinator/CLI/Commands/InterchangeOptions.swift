import ArgumentParser
import FarmCore
import FarmInterchange
import Foundation

/// How an OpenTimelineIO timeline (`.otio`) becomes a farm project: `farm import`, and every
/// command that takes a project file.
struct InterchangeOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "For an .otio: media under PREFIX on the editing machine is in DIR here (repeatable; the first "
                + "match wins).",
            valueName: "PREFIX=DIR"))
    var relink: [String] = []

    @Option(
        name: .long,
        help: ArgumentHelp(
            "For an .otio: the output picture, e.g. 1920x1080@24000/1001 (default 1920x1080 at the timeline's rate).",
            valueName: "WxH@FPS"))
    var canvas: String?

    @Flag(name: .long, help: "For an .otio: anything the farm cannot carry over is an error (exit 2), not a note.")
    var strict = false

    func options() throws -> OTIOImport.Options {
        var options = OTIOImport.Options()
        for pair in relink {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                throw ValidationError("--relink \(pair): expected PREFIX=DIR, e.g. --relink 'D:/media=/mnt/media'")
            }
            options.relinks.append((String(pair[..<equals]), String(pair[pair.index(after: equals)...])))
        }
        if let canvas {
            let parts = canvas.split(separator: "@", maxSplits: 1)
            let size = parts.first?.split(separator: "x") ?? []
            guard parts.count == 2, size.count == 2, let width = Int(size[0]), let height = Int(size[1]),
                let fps = Rational(parsing: String(parts[1])), fps > .zero
            else {
                throw ValidationError("--canvas \(canvas): expected WxH@FPS, e.g. 1920x1080@24 or 3840x2160@30000/1001")
            }
            options.canvas = (width, height, fps)
        }
        return options
    }

    /// Prints each note (or, with --strict, fails with them as problems).
    func report(_ notes: [Diagnostic], file: String) throws {
        if strict && !notes.isEmpty { throw ProjectError(file: file, diagnostics: notes) }
        for note in notes { FileHandle.standardError.writeUnlessClosed(Data("\(file): note: \(note)\n".utf8)) }
    }
}
