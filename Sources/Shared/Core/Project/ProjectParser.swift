import Foundation

/// Turns project JSON into a `Project`, reporting every problem with its JSON path.
///
/// This checks the document alone (types, keys, values, overlaps); `ProjectLoader` then checks
/// it against the media files.
public struct ProjectParser {
    /// Folder that relative asset paths are resolved against.
    public var mediaRoot: URL

    public init(mediaRoot: URL) {
        self.mediaRoot = mediaRoot
    }

    public func parse(_ data: [UInt8], file: String) throws -> Project {
        try parseWithWarnings(data, file: file).project
    }

    /// The project, and what was read otherwise than written (times rounded to the flick),
    /// one line per kind.
    public func parseWithWarnings(_ data: [UInt8], file: String) throws -> (project: Project, warnings: [Diagnostic]) {
        let document: JSONValue
        do {
            document = try JSONParser.parse(data)
        } catch let error as JSONSyntaxError {
            throw ProjectError(file: file, diagnostics: [Diagnostic(path: "", message: "malformed JSON at \(error)")])
        }
        let log = DiagnosticLog()
        let project = parseProject(document, log: log)
        guard log.isEmpty, let project else { throw ProjectError(file: file, diagnostics: log.diagnostics) }
        return (project, log.warnings)
    }

    func parseProject(_ document: JSONValue, log: DiagnosticLog) -> Project? {
        guard let root = JSONObjectReader(document, path: "", log: log) else { return nil }
        // Absent sections take their defaults; present ones must parse (nil then means a diagnostic).
        let resolvedOutput = root.raw("output").map { parseOutput($0, "output", log) } ?? defaultOutput
        let fps = resolvedOutput?.fps ?? Rational(30)
        let resolvedExport =
            root.raw("export").map { parseExport($0, "export", log, fps: fps) } ?? defaultExport(fps: fps)
        if let output = resolvedOutput, let export = resolvedExport, export.audio.codec == .aac,
            !Self.aacSampleRates.contains(output.audio.sampleRate)
        {
            log.add(
                "output.audio.sampleRate",
                "\(output.audio.sampleRate) is not a rate AAC can encode; use one of "
                    + Self.aacSampleRates.map(String.init).joined(separator: ", ") + " (or pcm audio in mov/mkv)")
        }
        if let output = resolvedOutput, let export = resolvedExport, export.video.codec == .av1,
            output.width < 64 || output.height < 64
        {
            log.add(
                "export.video.codec",
                "av1 (SVT-AV1) needs an output of at least 64x64 (output is \(output.width)x\(output.height))")
        }
        if let output = resolvedOutput, let export = resolvedExport, output.dynamicRange != .sdr,
            export.video.codec == .h264
        {
            log.add(
                "output.dynamicRange",
                "\(output.dynamicRange.rawValue) needs a 10-bit codec; h264 is encoded in 8 bits here: use hevc, av1, "
                    + "prores or ffv1")
        }
        let assets = root.required("assets") { value, path, log in parseAssets(value, path, log) }
        let tracks = root.required("tracks") { value, path, log -> [Track]? in
            guard case .array(let elements) = value else {
                log.add(path, "expected an array of tracks, got \(value.kindDescription)")
                return nil
            }
            let parsed = elements.enumerated().map { index, element in
                parseTrack(element, "\(path)[\(index)]", log, assets: assets, fps: fps)
            }
            return parsed.contains { $0 == nil } ? nil : parsed.compactMap { $0 }
        }
        // A template's declarations (`TemplateFields`), read and merged before the parser.
        _ = root.raw("fields")
        root.rejectUnknownKeys()
        if let tracks, tracks.allSatisfy({ $0.items.isEmpty }) {
            log.add("tracks", "the timeline is empty: add at least one item")
        }
        let longest = Rational(24 * 3600)
        if let tracks, let end = tracks.flatMap(\.items).map(\.end).max(), longest < end {
            log.add("tracks", "the timeline ends at \(end) s; a project may last at most 24 hours (86400 s)")
        }
        guard let resolvedOutput, let resolvedExport, let assets, let tracks else { return nil }
        let project = Project(output: resolvedOutput, export: resolvedExport, assets: assets, tracks: tracks)
        checkThumbnailSheet(of: project, log)
        return project
    }

    func parseAssets(_ value: JSONValue, _ path: String, _ log: DiagnosticLog) -> [String: Asset]? {
        guard case .object(let members) = value else {
            log.add(path, "expected an object mapping asset ids to {\"path\": ...}, got \(value.kindDescription)")
            return nil
        }
        var assets: [String: Asset] = [:]
        var valid = true
        for (id, body) in members {
            let assetPath = "\(path).\(JSONField.shortened(id))"
            guard let object = JSONObjectReader(body, path: assetPath, log: log) else {
                valid = false
                continue
            }
            let file = object.required("path", JSONField.string)
            let type = object.optional("type", default: nil) {
                JSONField.choice(AssetType.self)($0, $1, $2).map { Optional($0) }
            }
            let sequence = parseImageSequence(object, path: file, log: log)
            object.rejectUnknownKeys()
            guard let file, !file.isEmpty else {
                if file?.isEmpty == true { log.add(object.childPath("path"), "is empty") }
                valid = false
                continue
            }
            let url = file.hasPrefix("/") ? URL(fileURLWithPath: file) : mediaRoot.appendingPathComponent(file)
            var asset = Asset(path: url.standardizedFileURL.path)
            // A caption file is known by its extension unless the project says what it is.
            asset.isCaptions = (type ?? nil).map { $0 == .captions } ?? (CaptionFormat(fileName: file) != nil)
            asset.sequence = asset.isCaptions ? nil : sequence
            assets[id] = asset
        }
        return valid ? assets : nil
    }

    func parseTrack(_ value: JSONValue, _ path: String, _ log: DiagnosticLog, assets: [String: Asset]?, fps: Rational)
        -> Track?
    {
        guard let object = JSONObjectReader(value, path: path, log: log) else { return nil }
        let kind = object.required("kind", JSONField.choice(Track.Kind.self))
        _ = object.optional("name", default: "", JSONField.string)
        let mode = object.optional("mode", default: .free, JSONField.choice(Track.Mode.self))
        let offset = object.optional("offset", default: .zero, JSONField.time)
        if let offset, offset.isNegative { log.add(object.childPath("offset"), "must be >= 0 (got \(offset))") }
        let opacity = object.optional("opacity", default: 1, parseUnitValue)
        let muted = object.optional("muted", default: false, JSONField.bool)
        let hidden = object.optional("hidden", default: false, JSONField.bool)
        let transform = parseTransform(object)
        let grade = object.optional("grade", default: nil) { parseGrade($0, $1, $2).map { Optional($0) } }
        let transitionsValue = object.raw("transitions")
        let items = object.required("items") { value, itemsPath, log -> [Item]? in
            guard case .array(let elements) = value else {
                log.add(itemsPath, "expected an array of items, got \(value.kindDescription)")
                return nil
            }
            let parsed = elements.enumerated().map { index, element in
                parseItem(
                    element, "\(itemsPath)[\(index)]", log, assets: assets, inSequence: mode == .sequence, fps: fps)
            }
            return parsed.contains { $0 == nil } ? nil : parsed.compactMap { $0 }
        }
        object.rejectUnknownKeys()
        guard let kind, var items, let mode, let offset, !offset.isNegative, let opacity, let muted, let hidden,
            let transform, let grade
        else {
            return nil
        }
        if kind == .audio {
            for (index, item) in items.enumerated() where item.asset == nil {
                log.add("\(object.childPath("items"))[\(index)]", "an audio track plays media only; use \"asset\"")
            }
            if !transform.isIdentity { log.add(object.path, "an audio track has no pictures to transform") }
            if grade != nil { log.add(object.childPath("grade"), "an audio track has no pictures to grade") }
        }
        // A sequence packs its items end to end, as timeline editors pack a track; then the
        // whole track moves by its offset. Items keep absolute times from here on.
        var cursor = Rational.zero
        for index in items.indices {
            if mode == .sequence {
                items[index].at = cursor
                cursor = items[index].end
            }
            items[index].at = items[index].at + offset
            if muted { items[index].muted = true }
        }
        reportOverlaps(items, path: object.childPath("items"), log: log)
        var track = Track(kind: kind, items: items, opacity: opacity, hidden: hidden)
        track.transform = transform
        track.grade = grade
        if let transitionsValue {
            guard
                let transitions = parseTransitions(transitionsValue, object.childPath("transitions"), log, items: items)
            else { return nil }
            track.transitions = transitions
        }
        return track
    }

    private func reportOverlaps(_ items: [Item], path: String, log: DiagnosticLog) {
        let order = items.indices.sorted { items[$0].at < items[$1].at }
        for (previous, next) in zip(order, order.dropFirst()) where items[next].at < items[previous].end {
            log.add(
                "\(path)[\(next)]",
                "overlaps \(path)[\(previous)] on the same track (starts at \(items[next].at), "
                    + "which is before \(items[previous].end) where \(path)[\(previous)] ends); "
                    + "move it to another track"
            )
        }
    }

    func parseItem(
        _ value: JSONValue, _ path: String, _ log: DiagnosticLog, assets: [String: Asset]?, inSequence: Bool,
        fps: Rational
    ) -> Item? {
        guard let object = JSONObjectReader(value, path: path, log: log) else { return nil }
        let content = parseContent(object, assets: assets, log: log)
        let at: Rational?
        if inSequence {
            if object.has("at") {
                log.add(object.childPath("at"), "items of a sequence track follow one another; remove \"at\"")
            }
            at = object.has("at") ? nil : .zero
        } else {
            at = object.required("at", JSONField.time)
        }
        let duration = object.required("duration", JSONField.time)
        if let at, at.isNegative { log.add(object.childPath("at"), "must be >= 0 (got \(at))") }
        if let duration, duration <= .zero { log.add(object.childPath("duration"), "must be > 0 (got \(duration))") }
        var sourceStart: Rational? = .zero
        var sourceDuration: Rational? = duration
        if let source = object.raw("source"),
            let reader = JSONObjectReader(source, path: object.childPath("source"), log: log)
        {
            sourceStart = reader.optional("start", default: .zero, JSONField.time)
            if reader.has("duration") { sourceDuration = reader.required("duration", JSONField.time) }
            reader.rejectUnknownKeys()
            if let start = sourceStart, start.isNegative {
                log.add(reader.childPath("start"), "must be >= 0 (got \(start))")
            }
            if reader.has("duration"), let length = sourceDuration, length <= .zero {
                log.add(reader.childPath("duration"), "must be > 0 (got \(length))")
            }
        } else if object.has("source") {
            sourceStart = nil
        }
        let fit = object.optional("fit", default: .contain, JSONField.choice(Fit.self))
        let frame = object.optional("frame", default: .constant(.unit)) { parseAnimated($0, $1, $2, parse: parseRect) }
        let crop = object.optional("crop", default: .constant(.unit)) { parseAnimated($0, $1, $2, parse: parseRect) }
        let opacity = object.optional("opacity", default: .constant(1)) {
            parseAnimated($0, $1, $2, parse: parseUnitValue)
        }
        let volume = object.optional("volume", default: .constant(1)) { parseAnimated($0, $1, $2, parse: parseGain) }
        let pan = object.optional("pan", default: nil) {
            parseAnimated($0, $1, $2, parse: parseBalance).map { Optional($0) }
        }
        let pastEnd = object.optional("pastEnd", default: nil) {
            JSONField.choice(PastEnd.self)($0, $1, $2).map { Optional($0) }
        }
        let muted = object.optional("muted", default: false, JSONField.bool)
        let transform = parseTransform(object)
        let preservesPitch = object.optional("preservePitch", default: false, JSONField.bool)
        let grade = object.optional("grade", default: nil) { parseGrade($0, $1, $2).map { Optional($0) } }
        let timeMap = parseTimeMap(
            object, log: log, duration: duration,
            source: sourceStart.flatMap { start in sourceDuration.map { (start, $0) } }, fps: fps)
        let placement = parseCaptionPlacement(object, content: content, assets: assets, log: log)
        if case .media = content {
        } else {
            for key in ["source", "pastEnd", "volume", "pan", "timeMap", "freeze", "reverse", "preservePitch", "grade"]
            where object.has(key) {
                log.add(object.childPath(key), "a generated picture has no media; remove \"\(key)\"")
            }
        }
        object.rejectUnknownKeys()
        guard timeMap.valid, placement.valid, let preservesPitch, let grade, let content, let transform, let at,
            let duration,
            let sourceStart,
            let sourceDuration,
            let fit, let frame,
            let crop,
            let opacity, let volume, let pan, let pastEnd, let muted, !at.isNegative, duration > .zero,
            sourceDuration > .zero,
            !sourceStart.isNegative
        else { return nil }
        var item = Item(
            content: placement.placement.map(ItemContent.captions) ?? content, at: at, duration: duration,
            sourceStart: sourceStart, sourceDuration: sourceDuration,
            fit: fit, frame: frame, crop: crop, opacity: opacity, volume: volume, pastEnd: pastEnd, muted: muted)
        item.transform = transform
        item.timeMap = timeMap.map
        item.preservesPitch = preservesPitch
        item.grade = grade
        item.pan = pan
        return item
    }

}
