import FarmCore
import Foundation

/// An OpenTimelineIO timeline (`.otio`, JSON) as a farm project: `farm import`, and `farm
/// validate`/`render`/`submit` given an `.otio` directly. The mapping is in docs/otio.md.
public enum OTIOImport {
    public struct Options: Sendable {
        /// Folder relative media paths are found in; nil: the `.otio` file's folder.
        public var mediaRoot: URL?
        /// Path prefixes of the machine the timeline was made on, and the folders here that
        /// hold the same files, tried in order.
        public var relinks: [(prefix: String, folder: String)] = []
        /// The output picture; nil: 1920x1080 at the timeline's rate (OTIO has no canvas size).
        public var canvas: (width: Int, height: Int, fps: Rational)?
        /// Write every media path absolute (else relative ones stay relative to the media root).
        public var absolutePaths = false

        public init() {}
    }

    public struct Result: Sendable {
        /// The farm project, as the project format reads it.
        public var project: JSONValue
        /// What was not carried over, and what was done instead; one line each.
        public var notes: [Diagnostic]
        /// A few lines on what was imported: tracks, clips, gaps, transitions, time range.
        public var summary: [String]
    }

    /// The path an `ExternalReference.target_url` names (docs/otio.md), nil for a URL that is
    /// not a file's.
    public static func mediaPath(fromURL url: String) -> String? { OTIOMediaPath.path(fromURL: url) }

    /// Whether `file` is read as OpenTimelineIO (by its extension).
    public static func handles(_ file: String) -> Bool {
        URL(fileURLWithPath: file).pathExtension.lowercased() == "otio"
    }

    /// Imports the document `data` read from `file`; throws every problem at once, each naming
    /// the OTIO object by its JSON path.
    public static func read(_ data: [UInt8], file: String, options: Options) throws -> Result {
        let document: JSONValue
        do {
            // OTIO's own reader takes NaN and Infinity (its writer emits them in metadata).
            document = try JSONParser.parse(data, extensions: .nonFiniteNumbers)
        } catch let error as JSONSyntaxError {
            throw ProjectError(file: file, diagnostics: [Diagnostic(path: "", message: "not JSON: \(error)")])
        }
        let folder = URL(fileURLWithPath: file).deletingLastPathComponent()
        let reader = OTIOReader(options: options, folder: folder)
        guard let project = reader.read(document) else {
            throw ProjectError(file: file, diagnostics: reader.diagnostics)
        }
        let counts = reader.counts
        let fps = options.canvas?.fps ?? reader.rate ?? Rational(24)
        let summary = [
            "tracks: \(counts.video) video, \(counts.audio) audio; \(counts.clips) clips, \(counts.gaps) gaps, "
                + "\(counts.transitions) transitions",
            "time: 0 to \(reader.end.decimal) s at \(fps) fps",
        ]
        return Result(project: project, notes: reader.notes, summary: summary)
    }
}
