import FarmCore
import FarmInterchange
import Foundation
import TestSupport
import Testing

/// Every editor's timeline in `../shared/wild/timelines` (Avid AAF, CMX EDLs, Final Cut Pro
/// XML, Kdenlive, Pitivi, OTIO files) read by the `opentimelineio` package through its adapters,
/// as docs/otio.md tells a user to convert them, and imported by the farm: every clip the package
/// shows lands where the package shows it, from the same media time; a timeline that imports to
/// nothing says why, naming the .otio and its tracks. The media is not in the folder, so each
/// file a clip names is an empty placeholder, relinked as `--relink` would. Skips, saying so,
/// where the folder is absent.
@Suite(.enabled(if: WildFiles.folder != nil, Comment(rawValue: WildFiles.absent)))
struct WildTimelineTests {
    /// The extensions the adapters read (the folder holds a few of the toucan files' stills too).
    static let files = WildFiles.timelines.filter { name in
        ["aaf", "ale", "edl", "fcpxml", "xml", "kdenlive", "otio", "xges"].contains(
            URL(fileURLWithPath: name).pathExtension.lowercased())
    }

    /// The oracle's answer: why the adapter read nothing, or the clips it shows.
    struct PackageReading: Decodable {
        var adapter: String?
        var clips: [PackageClip]?
        var missing: Int?
    }

    struct PackageClip: Decodable, CustomStringConvertible {
        /// The reference's target_url (an image sequence's `BASE|PATTERN`); nil for a solid colour.
        var url: String?
        /// An image sequence's first frame number.
        var first: Int?
        var at: Double
        var duration: Double
        var media: Double
        var description: String { "\(url ?? "solid") at \(at) for \(duration) from \(media)" }
    }

    @Test(arguments: files)
    func placesEveryClipThePackagePlaces(file: String) throws {
        try withTemporaryDirectory { dir in
            let script = dir.appendingPathComponent("oracle.py")
            try Data(WildTimelineOracle.script.utf8).write(to: script)
            let converted = dir.appendingPathComponent(URL(fileURLWithPath: file).lastPathComponent + ".otio")
            let oracle = try run(
                TestPython.path, [script.path, WildFiles.url(of: file, in: "timelines").path, converted.path])
            try #require(oracle.status == 0, "\(file): \(oracle.stderr)")
            let reading = try JSONDecoder().decode(PackageReading.self, from: Data(oracle.stdout.utf8))
            if let refusal = reading.adapter {
                // Nothing to import: the package itself reads no timeline from the file.
                print("\(file): the package reads no timeline: \(refusal)")
                return
            }
            let clips = reading.clips ?? []
            let missing = reading.missing ?? 0
            let media = try placeholders(for: clips, in: dir)
            var options = OTIOImport.Options()
            // A sequence's folder is relinked to the folder of its placeholder frame.
            options.relinks = media.filter { !$0.path.isEmpty }.map {
                (prefix: $0.path, folder: FramePattern(path: $0.placeholder)?.folder ?? $0.placeholder)
            }
            options.absolutePaths = true
            let imported: OTIOImport.Result
            do {
                imported = try OTIOImport.read(
                    Array(try Data(contentsOf: converted)), file: converted.path, options: options)
            } catch let error as ProjectError {
                #expect(clips.isEmpty, "\(file): the farm refuses what the package places: \(error)")
                let message = "\(error)"
                #expect(message.hasPrefix(converted.path), "\(file): the refusal does not name the .otio: \(message)")
                #expect(message.contains("track"), "\(file): the refusal does not say which track: \(message)")
                print("\(file): nothing placed (\(missing) clips without media): \(message)")
                return
            }
            let project = try ProjectParser(mediaRoot: dir).parse(
                Array(JSONWriter.pretty(imported.project).utf8), file: converted.path)
            let urls = Dictionary(uniqueKeysWithValues: media.map { ($0.placeholder, $0.url) })
            let placed = project.tracks.flatMap(\.items).compactMap { item -> PackageClip? in
                let url: String?
                switch item.content {
                case .media(let id): url = urls[project.assets[id]!.path]
                case .solid: url = nil
                default: return nil
                }
                // The package's media time is where the clip's source range starts (a reversed
                // item plays that range from its end); a freeze's is the frame it holds.
                let frozen = item.timeMap?.keys.count == 1
                let media = frozen ? item.sourceTime(at: item.at) : item.sourceStart
                return PackageClip(url: url, at: item.at.seconds, duration: item.duration.seconds, media: media.seconds)
            }
            var unmatched = placed
            var misplaced: [PackageClip] = []
            for clip in clips {
                if let index = unmatched.firstIndex(where: { Self.same($0, clip) }) {
                    unmatched.remove(at: index)
                } else {
                    misplaced.append(clip)
                }
            }
            #expect(
                misplaced.isEmpty, "\(file): the package places \(misplaced.prefix(8)), the farm \(unmatched.prefix(8))"
            )
            #expect(unmatched.isEmpty, "\(file): the farm places \(unmatched.prefix(8)) where the package shows none")
            print(
                "\(file): \(clips.count - misplaced.count) of \(clips.count) clips placed as the package places "
                    + "them (\(missing) without media)")
        }
    }

    /// OTIO times are rationals of a double rate; the farm holds them as exact fractions (a
    /// continued fraction within one flick, docs/otio.md), so a microsecond is more than enough.
    /// A solid colour has no media time.
    static func same(_ a: PackageClip, _ b: PackageClip) -> Bool {
        a.url == b.url && abs(a.at - b.at) < 1e-6 && abs(a.duration - b.duration) < 1e-6
            && (a.url == nil || abs(a.media - b.media) < 1e-6)
    }

    /// An empty file for each media path the clips name, keyed by its path as the farm reads it;
    /// for an image sequence, a folder holding its first frame, relinked from the frames' folder.
    func placeholders(for clips: [PackageClip], in dir: URL) throws -> [(
        url: String, path: String, placeholder: String
    )] {
        let folder = dir.appendingPathComponent("media")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let firsts = Dictionary(clips.compactMap { clip in clip.url.map { ($0, clip.first) } }) { kept, _ in kept }
        return try Set(clips.compactMap(\.url)).sorted().enumerated().map { index, url in
            if let bar = url.firstIndex(of: "|") {
                let base = String(url[..<bar])
                let name = String(url[url.index(after: bar)...])
                // An empty base is the timeline's folder: the frame is put there, nothing relinked.
                let path = try #require(base.isEmpty ? "" : OTIOImport.mediaPath(fromURL: base), "not a URL: \(base)")
                let frames = base.isEmpty ? dir : folder.appendingPathComponent("\(index)-frames")
                try FileManager.default.createDirectory(at: frames, withIntermediateDirectories: true)
                let pattern = try #require(FramePattern(path: frames.appendingPathComponent(name).path))
                FileManager.default.createFile(atPath: pattern.path(firsts[url].flatMap { $0 } ?? 1), contents: nil)
                // The farm's asset is the relinked folder's pattern: the URL is found by it.
                return (url, path, pattern.folder + "/" + name)
            }
            let path = try #require(OTIOImport.mediaPath(fromURL: url), "not a file URL: \(url)")
            let name = path.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? "media"
            let placeholder = folder.appendingPathComponent("\(index)-\(name)").path
            FileManager.default.createFile(atPath: placeholder, contents: nil)
            return (url, path, placeholder)
        }
    }
}
