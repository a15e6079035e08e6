import FarmCore
import FarmInterchange
import FarmMedia
import FarmText
import Foundation

/// Reads a project file and checks it against its media: files exist and decode, items use the
/// right kind of media, and source ranges lie inside the media.
public struct ProjectLoader {
    /// Folder for relative asset paths; nil means the project file's folder.
    public var mediaRoot: URL?
    /// Refuse any asset outside `mediaRoot` once paths are resolved: absolute paths elsewhere,
    /// `..` and symbolic links that lead out. Set where an operator gave `--media-root`.
    public var confined: Bool
    /// Finds out what a media file holds: `MediaProbe` here, or an `IsolatedMediaProbe`. Called
    /// from several threads at once, one file each.
    public var probe: (String) throws -> MediaInfo = { try MediaProbe.probe(path: $0) }
    /// How an OpenTimelineIO file (`.otio`) is imported: relinks and the canvas.
    public var interchange = OTIOImport.Options()
    /// Values for a template's fields (`TemplateFields`), and how their problems are named
    /// (`merge` for `--merge`, `row 7` for a CSV row).
    public var merge: [String: TemplateFields.Value] = [:]
    public var mergePath = "merge"

    public init(mediaRoot: URL? = nil, confined: Bool = false) {
        self.mediaRoot = mediaRoot
        self.confined = confined && mediaRoot != nil
    }

    public func load(file: String) throws -> LoadedProject {
        let url = URL(fileURLWithPath: file)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            let reason = FileManager.default.fileExists(atPath: url.path) ? "cannot be read" : "file not found"
            throw ProjectError(file: file, diagnostics: [Diagnostic(path: "", message: reason)])
        }
        let root = mediaRoot ?? url.deletingLastPathComponent()
        guard OTIOImport.handles(file) else {
            let merged = try TemplateFields.mergedText(Array(data), values: merge, valuesPath: mergePath, file: file)
            let bytes = merged.map { Array($0.utf8) } ?? Array(data)
            let parsed = try ProjectParser(mediaRoot: root).parseWithWarnings(bytes, file: file)
            var loaded = try check(parsed.project, file: file)
            loaded.warnings = parsed.warnings
            loaded.mergedText = merged
            return loaded
        }
        guard merge.isEmpty else {
            throw ProjectError(
                file: file,
                diagnostics: [
                    Diagnostic(path: "", message: "a timeline is no template: merge values need a farm project")
                ])
        }
        var options = interchange
        options.mediaRoot = mediaRoot
        let result = try OTIOImport.read(Array(data), file: file, options: options)
        let text = JSONWriter.pretty(result.project)
        do {
            let project = try ProjectParser(mediaRoot: root).parse(Array(text.utf8), file: file)
            var loaded = try check(project, file: file)
            loaded.imported = ImportedProject(text: text, notes: result.notes, summary: result.summary)
            return loaded
        } catch var error as ProjectError {
            // These paths are the farm project's, not the timeline's: say where to see it.
            error.diagnostics.append(
                Diagnostic(
                    path: "",
                    message: "(paths above are in the farm project made from this timeline; "
                        + "`farm import \(file) -o project.json` writes it)"))
            throw error
        }
    }

    /// Parses project text already read (a worker gets it from its assignment).
    public func parse(text: String, file: String) throws -> Project {
        let root = mediaRoot ?? URL(fileURLWithPath: file).deletingLastPathComponent()
        return try ProjectParser(mediaRoot: root).parse(Array(text.utf8), file: file)
    }

    /// Probes the assets (all, or only `assets`) and checks each item using them against its media.
    public func check(_ project: Project, file: String, assets: Set<String>? = nil) throws -> LoadedProject {
        let log = DiagnosticLog()
        var media: [String: MediaInfo] = [:]
        var probes: [(id: String, path: String)] = []
        let root = confined ? mediaRoot.map { PathConfinement.resolved($0.path) } : nil
        var runs: [String: SequenceRun] = [:]
        for id in project.assets.keys.sorted() where assets?.contains(id) ?? true {
            var path = project.assets[id]!.path
            if project.assets[id]!.isCaptions { continue }
            if let sequence = project.assets[id]!.sequence {
                guard let run = SequenceRun(asset: project.assets[id]!, timing: sequence, output: project.output) else {
                    let first = sequence.firstFrame.map { "frame \($0) of " } ?? "no frames of "
                    log.add("assets.\(id).path", "\(first)\(path) found (image2's numbering: %04d is 0001, ...)")
                    continue
                }
                runs[id] = run
                path = run.firstPath
            }
            if let root {
                guard PathConfinement.contains(root: root, PathConfinement.resolved(path)) else {
                    log.add(
                        "assets.\(id).path",
                        "\(path) is outside the media root \(root); assets must stay inside it (no absolute paths "
                            + "elsewhere, no .., no links out)")
                    continue
                }
            }
            // A FIFO or a device would block the probe's open for as long as nobody writes to it.
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder),
                isFolder.boolValue
                    || (try? URL(fileURLWithPath: path).resolvingSymlinksInPath().resourceValues(forKeys: [
                        .isRegularFileKey
                    ])
                    .isRegularFile)
                        != true
            {
                log.add("assets.\(id).path", "not a regular file (a folder, FIFO or device): \(path)")
                continue
            }
            probes.append((id, path))
        }
        // Each probe opens a file and decodes its first frames: a project's assets are probed
        // side by side, one per core.
        let outcomes = Locked<[String: Result<MediaInfo, Error>]>([:])
        DispatchQueue.concurrentPerform(iterations: probes.count) { index in
            let (id, path) = probes[index]
            let outcome = Result { try probe(path) }
            outcomes.withLock { $0[id] = outcome }
        }
        for (id, path) in probes {
            do {
                media[id] = try outcomes.current[id]!.get()
                if let run = runs[id] { media[id] = run.info(firstPicture: media[id]!) }
            } catch let error as FFmpegError {
                let reason = error.operation == path ? "\(error.message): \(path)" : error.description
                log.add("assets.\(id).path", reason)
            }
        }
        for (trackIndex, track) in project.tracks.enumerated() {
            for (itemIndex, item) in track.items.enumerated() {
                if case .title(let title) = item.content, FontResolver.file(for: title.font) == nil {
                    log.add(
                        "tracks[\(trackIndex)].items[\(itemIndex)].title.font",
                        Title.isFontFile(title.font)
                            ? "font file not found: \(title.font)"
                            : "no installed font family \(quotedForMessage(title.font)) "
                                + "(`fc-list : family` lists them), or give a font file's path")
                }
                if case .captions(let placement) = item.content, placement.burnIn,
                    FontResolver.file(for: placement.style.font) == nil
                {
                    log.add(
                        "tracks[\(trackIndex)].items[\(itemIndex)].captions.style.font",
                        "no installed font \(quotedForMessage(placement.style.font))")
                }
                guard let id = item.asset, let info = media[id] else { continue }
                checkItem(
                    item, info: info, kind: track.kind, path: "tracks[\(trackIndex)].items[\(itemIndex)]", log: log)
            }
            for (index, transition) in track.transitions.enumerated() {
                checkTransition(
                    transition, of: track, media: media, path: "tracks[\(trackIndex)]", index: index, log: log)
            }
        }
        checkEncoderOptions(project, log: log)
        let captions = readCaptions(of: project, only: assets, log: log)
        guard log.isEmpty else { throw ProjectError(file: file, diagnostics: log.diagnostics) }
        let graded = loadLUTs(project, log: log)
        guard log.isEmpty else { throw ProjectError(file: file, diagnostics: log.diagnostics) }
        var loaded = LoadedProject(project: graded.project, media: media)
        loaded.captions = captions
        loaded.luts = graded.luts
        return loaded
    }

    /// The cues of every caption asset an item places, read now: a worker needs them for any
    /// chunk (they are small), and the join for the soft stream.
    public func captions(of project: Project, file: String) throws -> [String: [CaptionCue]] {
        let log = DiagnosticLog()
        let captions = readCaptions(of: project, log: log)
        guard log.isEmpty else { throw ProjectError(file: file, diagnostics: log.diagnostics) }
        return captions
    }

    /// The cues of every caption asset, or of those among `ids`.
    private func readCaptions(of project: Project, only ids: Set<String>? = nil, log: DiagnosticLog) -> [String:
        [CaptionCue]]
    {
        var captions: [String: [CaptionCue]] = [:]
        let root = confined ? mediaRoot.map { PathConfinement.resolved($0.path) } : nil
        for (id, asset) in project.assets.sorted(by: { $0.key < $1.key })
        where asset.isCaptions && ids?.contains(id) ?? true {
            if let root, !PathConfinement.contains(root: root, PathConfinement.resolved(asset.path)) {
                log.add(
                    "assets.\(id).path",
                    "\(asset.path) is outside the media root \(root); assets must stay inside it (no absolute paths "
                        + "elsewhere, no .., no links out)")
                continue
            }
            guard let bytes = FileManager.default.contents(atPath: asset.path) else {
                let exists = FileManager.default.fileExists(atPath: asset.path)
                log.add("assets.\(id).path", "\(exists ? "cannot read" : "file not found"): \(asset.path)")
                continue
            }
            do {
                captions[id] = try CaptionFileParser.parse(
                    Array(bytes), file: URL(fileURLWithPath: asset.path).lastPathComponent, format: asset.captionFormat)
            } catch let error as CaptionFileError {
                log.add("assets.\(id).path", error.description)
            } catch {
                log.add("assets.\(id).path", "\(error)")
            }
        }
        return captions
    }

    /// Encoder options are the encoder's to judge: it is opened once, as every chunk would open
    /// it, so an option it refuses is a bad project before any worker starts.
    private func checkEncoderOptions(_ project: Project, log: DiagnosticLog) {
        guard !project.export.video.encoderOptions.isEmpty else { return }
        do {
            _ = try MediaEncoder.video(
                output: project.output, settings: project.export.video, threads: 1, globalHeader: false)
        } catch {
            log.add("export.video.encoderOptions", "\(error)")
        }
    }

    /// The slowest an item's sound may play.
    static let slowestSoundSpeed = Rational(1, 100)

    private func checkItem(_ item: Item, info: MediaInfo, kind: Track.Kind, path: String, log: DiagnosticLog) {
        let id = item.asset ?? ""
        switch (kind, info.kind) {
        case (.video, .audio):
            log.add("\(path).asset", "asset \(quotedForMessage(id)) has no pictures; put sound on an audio track")
            return
        case (.audio, _) where !info.hasAudio:
            log.add("\(path).asset", "asset \(quotedForMessage(id)) has no sound; put pictures on a video track")
            return
        default:
            break
        }
        // Sound plays like tape, resampled by 1/speed: slower than this it is no longer sound, and
        // the resampler's rate would overflow.
        if info.hasAudio, !item.muted, item.timeMap == nil, item.speed < Self.slowestSoundSpeed {
            log.add(
                "\(path).source.duration",
                "plays \(item.sourceDuration) s of media in \(item.duration) s, too slow for its sound (at least "
                    + "1/100 of normal speed); set \"muted\": true, or play more of the media")
        }
        guard let length = info.duration else { return }
        let asset = "asset \(quotedForMessage(id)) (\(format(length.seconds)) s)"
        if let timeMap = item.timeMap {
            let latest = timeMap.latestSource(duration: item.duration)
            if length < latest && item.pastEnd == nil {
                log.add(
                    "\(path)",
                    "shows media time \(latest), past the end of \(asset); change the times, or set "
                        + "\"pastEnd\" to \"hold\" or \"black\"")
            }
            return
        }
        if item.sourceStart >= length {
            log.add("\(path).source.start", "\(item.sourceStart) is past the end of \(asset)")
            return
        }
        let sourceEnd = item.sourceStart + item.sourceDuration
        if length < sourceEnd && item.pastEnd == nil {
            log.add(
                "\(path).source.duration",
                "the source range ends at \(sourceEnd), past the end of \(asset); shorten it, or set \"pastEnd\" "
                    + "to \"hold\" or \"black\" to say what to show after the media ends")
        }
    }

    /// Both items must have media inside the span: the outgoing one after its end, the incoming
    /// one before its start; unless the transition holds their edge frames where it has none.
    private func checkTransition(
        _ transition: Transition, of track: Track, media: [String: MediaInfo], path: String, index: Int,
        log: DiagnosticLog
    ) {
        // The readers show the first frame before a file's first and the last after its last,
        // and sound nothing there: holding needs nothing more than not refusing.
        guard transition.handles != .hold else { return }
        var missing: [String] = []
        if let index = transition.outgoing, case let outgoing = track.items[index], let id = outgoing.asset,
            outgoing.pastEnd == nil, let length = media[id]?.duration, length < outgoing.sourceTime(at: transition.end)
        {
            missing.append(
                "items[\(index)] needs media up to \(outgoing.sourceTime(at: transition.end)) s "
                    + "but asset \(quotedForMessage(id)) ends at \(format(length.seconds)) s")
        }
        if let index = transition.incoming, case let incoming = track.items[index], incoming.asset != nil,
            incoming.sourceTime(at: transition.start).isNegative
        {
            missing.append(
                "items[\(index)] needs \(transition.inOffset) s of media before its source start "
                    + "\(incoming.sourceStart) s")
        }
        guard !missing.isEmpty else { return }
        let sides = [transition.outgoing, transition.incoming].compactMap { $0 }.map { "items[\($0)]" }
        let what =
            sides.count == 2 ? "joins \(sides[0]) and \(sides[1]), whose media" : "fades \(sides[0]), whose media"
        log.add(
            "\(path).transitions[\(index)]",
            "\(what) must cover the "
                + "transition: " + missing.joined(separator: "; ")
                + "; trim the items, shorten the transition, or set \"handles\": \"hold\" to hold their edge frames")
    }

    private func format(_ seconds: Double) -> String {
        String(format: "%.3f", seconds).replacingOccurrences(of: #"0+$"#, with: "", options: .regularExpression)
            .replacingOccurrences(of: #"\.$"#, with: ".0", options: .regularExpression)
    }
}
