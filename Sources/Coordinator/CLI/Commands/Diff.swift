import ArgumentParser
import FarmCore
import FarmRender
import Foundation

struct Diff: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show which chunks an edit makes the farm render again, and why.",
        discussion: """
            Cuts both projects into chunks as `farm submit` would (the same chunk options), \
            computes every chunk's key (what can change its bytes: the items it shows or \
            sounds, with times from the chunk's start; the media they play, by path and stamp; \
            the output and export settings) and lists each video chunk and audio block whose key \
            differs, with what changed in it. Every other chunk is reused from the segment cache \
            when NEW is submitted to a farm that rendered OLD.

            Exit codes: 0 nothing to render again, 1 some chunks differ, 2 a bad project, 64 a \
            wrong command line.

            Examples:
              farm diff cut-v1.json cut-v2.json
              farm diff cut-v1.otio cut-v2.otio --chunk-seconds 4
            """
    )

    @Argument(help: "The project as rendered before (JSON or .otio).")
    var old: String

    @OptionGroup var new: ProjectOptions

    @OptionGroup(title: "Chunks") var chunking: ChunkOptions

    func run() throws {
        var before = new
        before.project = old
        let oldLoaded = try before.load()
        let newLoaded = try new.load()
        let size = chunking.size
        // Each asset's stamp once per project: one stat per file.
        let (oldPins, newPins) = (try MediaPin.pins(of: oldLoaded.project), try MediaPin.pins(of: newLoaded.project))
        let video = Self.changes(
            from: Side(oldLoaded.project, oldLoaded.project.videoChunks(size), pins: oldPins),
            to: Side(newLoaded.project, newLoaded.project.videoChunks(size), pins: newPins))
        let audio = Self.changes(
            from: Side(oldLoaded.project, oldLoaded.project.audioBlocks(), pins: oldPins),
            to: Side(newLoaded.project, newLoaded.project.audioBlocks(), pins: newPins))
        for line in video.lines + audio.lines { print(line) }
        let changed = video.lines.count + audio.lines.count
        let total = video.total + audio.total
        print("\(changed) of \(Format.count(total, "chunk")) (video chunks and audio blocks) would be rendered again")
        if changed > 0 { throw ExitCode(1) }
    }

    /// One project's video chunks or audio blocks and their keys.
    private struct Side<Span: WorkSpan> {
        let project: Project
        let spans: [Span]
        let pins: [String: MediaPin]
        let keys: [String]

        init(_ project: Project, _ spans: [Span], pins: [String: MediaPin]) {
            self.project = project
            self.spans = spans
            self.pins = pins
            keys = ChunkKeys.keys(of: project, work: spans, container: project.export.container, pins: pins)
        }

        func materials() -> [ChunkMaterial] {
            ChunkKeys.materials(of: project, work: spans, container: project.export.container, pins: pins)
        }
    }

    /// A line per chunk or block whose key differs, with why; and how many the new side has.
    private static func changes<Span>(from old: Side<Span>, to new: Side<Span>) -> (lines: [String], total: Int) {
        let differing = new.keys.indices.filter { $0 >= old.keys.count || old.keys[$0] != new.keys[$0] }
        // What each key hashed, read only when some differ: a few MB a thousand chunks.
        let (oldMaterials, newMaterials) = differing.isEmpty ? ([], []) : (old.materials(), new.materials())
        let lines = differing.map { index in
            let material = newMaterials[index]
            let what = Span.kind == .video ? "chunk \(index)" : "audio block \(index)"
            let reasons =
                index < oldMaterials.count
                ? Self.reasons(old: oldMaterials[index], new: material) : ["not in the old timeline"]
            return "\(what) [\(material.start), \(material.end)): \(reasons.joined(separator: "; "))"
        }
        return (lines, new.keys.count)
    }

    /// What differs between two versions of one chunk, in words.
    static func reasons(old: ChunkMaterial, new: ChunkMaterial) -> [String] {
        var reasons: [String] = []
        if old.start != new.start || old.end != new.end { reasons.append("its range moved") }
        if old.endsTimeline != new.endsTimeline { reasons.append("the timeline's end moved") }
        if old.output != new.output { reasons.append("output settings changed") }
        if old.export != new.export || old.container != new.container { reasons.append("export settings changed") }
        if old.renderer != new.renderer { reasons.append("the renderer changed") }
        for (id, media) in new.media.sorted(by: { $0.key < $1.key }) where old.media[id].map({ $0 != media }) ?? false {
            reasons.append("asset \(id) (\(media.path)) changed on disk or moved")
        }
        let (oldRead, newRead) = (items(of: old), items(of: new))
        let oldItems = Set(oldRead.map(\.json))
        let newItems = Set(newRead.map(\.json))
        let added = newRead.filter { !oldItems.contains($0.json) }
        let removed = oldRead.filter { !newItems.contains($0.json) }
        for item in added {
            let place = "track \(item.track) item \(item.index)"
            let edited = removed.contains { $0.track == item.track && $0.index == item.index }
            reasons.append("\(place) (\(item.name)) \(edited ? "changed" : "is new here")")
        }
        for item in removed where !added.contains(where: { $0.track == item.track && $0.index == item.index }) {
            reasons.append("track \(item.track) item \(item.index) (\(item.name)) is gone from here")
        }
        if reasons.isEmpty { reasons.append("a track's settings or transitions changed") }
        return reasons
    }

    /// Each item the chunk reads, as its relative JSON, with where it is in the project.
    private static func items(of material: ChunkMaterial) -> [(track: Int, index: Int, name: String, json: String)] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return zip(material.trackIndices, material.tracks).flatMap { track, slice in
            zip(slice.itemIndices, slice.items).map { index, item in
                let json = String(decoding: (try? encoder.encode(item)) ?? Data(), as: UTF8.self)
                return (track, index, name(of: item), json)
            }
        }
    }

    private static func name(of item: Item) -> String {
        switch item.content {
        case .media(let id): return "asset \(id)"
        case .solid: return "solid"
        case .gradient: return "gradient"
        case .title(let title): return "title \"\(title.text.prefix(24))\""
        case .captions(let placement): return "captions \(placement.asset)"
        }
    }
}
