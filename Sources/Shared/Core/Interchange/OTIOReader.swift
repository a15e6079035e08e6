import Foundation

/// Walks an OpenTimelineIO timeline and writes the farm's project for it (`OTIOImport`), keeping
/// two lists: problems (the document cannot be rendered as it says: exit 2) and notes (something
/// the farm does not carry over, with what was done instead).
///
/// Time follows OTIO's own rules (`Track::range_of_child_at_index`): items follow each other in
/// a track, transitions take no time of their own, a track's or stack's `source_range` is a
/// window over its children, and a clip plays its media from `source_range.start_time −
/// available_range.start_time` (timecode-based ranges start at the file's first frame).
final class OTIOReader {
    let options: OTIOImport.Options
    let folder: URL
    private let problems = DiagnosticLog()
    private(set) var notes: [Diagnostic] = []

    private var assets: [(id: String, path: String)] = []
    private var tracks: [JSONValue] = []
    private(set) var counts = (video: 0, audio: 0, clips: 0, gaps: 0, transitions: 0)
    private(set) var end = Rational.zero
    /// The rate the timeline counts in: its `global_start_time`'s, else its first range's.
    private(set) var rate: Rational?

    init(options: OTIOImport.Options, folder: URL) {
        self.options = options
        self.folder = folder
    }

    var diagnostics: [Diagnostic] { problems.diagnostics }
    var hasProblems: Bool { !problems.isEmpty }

    /// Durations are read again where items are placed: each message is kept once.
    private var said: Set<Diagnostic> = []

    func problem(_ path: String, _ message: String) {
        if said.insert(Diagnostic(path: path, message: message)).inserted { problems.add(path, message) }
    }

    func note(_ path: String, _ message: String) {
        let note = Diagnostic(path: path, message: message)
        if said.insert(note).inserted { notes.append(note) }
    }

    static func show(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): return "\"\(text)\""
        case .number(let text): return text
        default: return value.kindDescription
        }
    }

    static func seconds(_ value: Rational) -> String { "\(value.decimal) s" }

    // MARK: The document

    /// Reads the document's timeline (a `SerializableCollection` gives its first) and returns
    /// the farm project, or nil when there were problems.
    func read(_ document: JSONValue) -> JSONValue? {
        guard let root = OTIOObject(document, path: "", reader: self) else { return nil }
        var timeline = root
        if root.schema.name == "SerializableCollection" || root.schema.name == "SerializeableCollection" {
            let timelines = root.array("children").enumerated().compactMap { index, child -> OTIOObject? in
                guard let object = OTIOObject(child, path: "children[\(index)]", reader: self),
                    object.schema.name == "Timeline"
                else { return nil }
                return object
            }
            guard let first = timelines.first else {
                problem("children", "a SerializableCollection without a Timeline")
                return nil
            }
            if timelines.count > 1 {
                note(
                    timelines[1].path, "\(timelines.count - 1) more timelines in the collection; the first is imported")
            }
            timeline = first
        }
        guard timeline.schema.name == "Timeline", timeline.schema.version == 1 else {
            problem(timeline.path, "expected a Timeline.1, got \(timeline.schema.text)")
            return nil
        }
        if let start = timeline.raw("global_start_time"), start != .null {
            rate = instant(start, path: timeline.childPath("global_start_time"))?.rate
        }
        guard let stackValue = timeline.raw("tracks"),
            let stack = OTIOObject(stackValue, path: timeline.childPath("tracks"), reader: self)
        else {
            problem(timeline.childPath("tracks"), "a Timeline needs its tracks (a Stack)")
            return nil
        }
        guard stack.schema.name == "Stack" else {
            problem(stack.path, "expected a Stack, got \(stack.schema.text)")
            return nil
        }
        placeStack(stack, offset: .zero, window: nil, kind: nil)
        if hasProblems { return nil }
        return project(named: timeline.name)
    }

    private func project(named name: String) -> JSONValue {
        let canvas = options.canvas
        let fps = canvas?.fps ?? rate ?? Rational(24)
        var output: [(key: String, value: JSONValue)] = [
            ("width", .number(String(canvas?.width ?? 1920))), ("height", .number(String(canvas?.height ?? 1080))),
            ("fps", .string(fps.description)),
        ]
        output.append(("audio", .object([("sampleRate", .number("48000")), ("channels", .number("2"))])))
        return .object([
            ("output", .object(output)),
            ("assets", .object(assets.map { ($0.id, .object([("path", .string($0.path))])) })),
            ("tracks", .array(tracks)),
        ])
    }

    // MARK: Compositions

    /// A Stack's children drawn bottom to top from `offset` (timeline time of the stack's
    /// internal time 0), within `window`.
    private func placeStack(_ stack: OTIOObject, offset: Rational, window: Range<Rational>?, kind: String?) {
        var window = window
        var offset = offset
        if let trim = trimRange(of: stack) {
            offset = offset - trim.start
            window = intersect(window, (offset + trim.start)..<(offset + trim.end))
        }
        for (index, child) in stack.array("children").enumerated() {
            guard let object = OTIOObject(child, path: "\(stack.path).children[\(index)]", reader: self) else {
                continue
            }
            guard object.enabled else { continue }
            switch object.schema.name {
            case "Track", "Sequence": placeTrack(object, offset: offset, window: window, kind: kind)
            case "Stack": placeStack(object, offset: offset, window: window, kind: kind)
            case "Clip", "Gap", "Filler":
                // A stack's clip starts at the stack's 0, like a track of one.
                placeSequence([child], in: object, path: stack.path, offset: offset, window: window, kind: kind)
            default:
                problem(object.path, "\(object.schema.text) cannot be a child of a Stack here")
            }
        }
    }

    /// A Track's children one after another, as one farm track (nested compositions become
    /// tracks of their own right after it).
    private func placeTrack(_ track: OTIOObject, offset: Rational, window: Range<Rational>?, kind: String?) {
        var ownKind = kind
        if case .string(let text)? = track.raw("kind") {
            switch text {
            case "Video": ownKind = "video"
            case "Audio": ownKind = "audio"
            default:
                note(
                    track.childPath("kind"),
                    "track kind \"\(text)\" is neither Video nor Audio; read as \(kind ?? "video")")
            }
        } else if kind == nil {
            problem(track.childPath("kind"), "a Track needs its kind (\"Video\" or \"Audio\")")
            return
        }
        var window = window
        var offset = offset
        if let trim = trimRange(of: track) {
            offset = offset - trim.start
            window = intersect(window, (offset + trim.start)..<(offset + trim.end))
        }
        placeSequence(
            track.array("children"), in: track, path: track.path, offset: offset, window: window,
            kind: ownKind ?? "video")
    }

    /// One farm track from `children` laid end to end from `offset`.
    private func placeSequence(
        _ children: [JSONValue], in parent: OTIOObject, path: String, offset: Rational, window: Range<Rational>?,
        kind: String?
    ) {
        let kind = kind ?? "video"
        var items: [JSONValue] = []
        var transitions: [JSONValue] = []
        var nested: [() -> Void] = []
        var cursor = Rational.zero
        /// The farm index of the clip that ends at `cursor`, and a transition waiting for the next.
        var previous: Int?
        var pending: (object: OTIOObject, value: [(key: String, value: JSONValue)])?
        let childPath = children.count == 1 && parent.schema.name == "Stack" ? path : "\(path).children"
        for (index, child) in children.enumerated() {
            let here = children.count == 1 && parent.schema.name == "Stack" ? path : "\(childPath)[\(index)]"
            guard let object = OTIOObject(child, path: here, reader: self) else { continue }
            let start = cursor
            switch object.schema.name {
            case "Transition":
                if let waiting = pending {
                    note(waiting.object.path, "\(waiting.object.label) is followed by another transition; left out")
                }
                pending = transition(object).map { (object, $0) }
                if previous == nil, let waiting = pending {
                    note(waiting.object.path, "\(waiting.object.label) has no clip before it; left out")
                    pending = nil
                }
                continue
            case "Gap", "Filler":
                cursor = cursor + (trimRange(of: object)?.duration ?? .zero)
                counts.gaps += object.enabled ? 1 : 0
                previous = nil
            case "Clip":
                let duration = clipDuration(object)
                cursor = cursor + (duration ?? .zero)
                guard object.enabled, let duration else {
                    previous = nil
                    break
                }
                if let item = clip(object, at: offset + start, duration: duration, window: window, kind: kind) {
                    items.append(item)
                    counts.clips += 1
                    if let waiting = pending, let outgoing = previous {
                        var value = waiting.value
                        value.insert(
                            ("between", .array([.number(String(outgoing)), .number(String(items.count - 1))])), at: 0)
                        transitions.append(.object(value))
                        counts.transitions += 1
                        pending = nil
                    }
                    previous = items.count - 1
                } else {
                    previous = nil
                }
            case "Stack", "Track", "Sequence":
                let duration = compositionDuration(object) ?? .zero
                cursor = cursor + duration
                previous = nil
                guard object.enabled else { break }
                let at = offset + start
                let inner = intersect(window, at..<(at + duration))
                if object.schema.name == "Stack" {
                    nested.append { self.placeStack(object, offset: at, window: inner, kind: kind) }
                } else {
                    nested.append { self.placeTrack(object, offset: at, window: inner, kind: kind) }
                }
            default:
                problem(here, "unknown schema \(object.schema.text) in a track")
                continue
            }
            if let waiting = pending, object.schema.name != "Clip" {
                note(waiting.object.path, "\(waiting.object.label) does not sit between two clips; left out")
                pending = nil
            }
            end = Rational.max(end, offset + cursor)
        }
        if let waiting = pending {
            note(waiting.object.path, "\(waiting.object.label) has no clip after it; left out")
        }
        if !items.isEmpty {
            var track: [(key: String, value: JSONValue)] = [("kind", .string(kind))]
            if !parent.name.isEmpty { track.append(("name", .string(parent.name))) }
            track.append(("items", .array(items)))
            if !transitions.isEmpty { track.append(("transitions", .array(transitions))) }
            tracks.append(.object(track))
            if kind == "audio" { counts.audio += 1 } else { counts.video += 1 }
        }
        for place in nested { place() }
        notes(markersOf: parent)
    }

    // MARK: Items

    /// The farm item for a clip placed at timeline time `at`; nil (with a problem or a note)
    /// when it cannot be drawn.
    private func clip(_ clip: OTIOObject, at: Rational, duration: Rational, window: Range<Rational>?, kind: String)
        -> JSONValue?
    {
        notes(markersOf: clip)
        guard let reference = mediaReference(of: clip) else { return nil }
        let trimmed = trimRange(of: clip)
        let available = reference.raw("available_range").flatMap { value -> OTIORange? in
            value == .null ? nil : range(value, path: reference.childPath("available_range"))
        }
        var content: [(key: String, value: JSONValue)]
        switch reference.schema.name {
        case "ExternalReference":
            guard let path = mediaPath(reference, clip: clip) else { return nil }
            content = [("asset", .string(assetID(for: path)))]
        case "GeneratorReference":
            guard let color = solidColor(reference) else {
                note(
                    clip.path,
                    "\(clip.label): generator \(Self.show(reference.raw("generator_kind") ?? .null)) is not one "
                        + "the farm draws; left as a gap"
                )
                return nil
            }
            content = [("solid", .string(color))]
        case "MissingReference":
            note(clip.path, "\(clip.label) has no media (MissingReference); left as a gap")
            return nil
        case "ImageSequenceReference":
            note(clip.path, "\(clip.label): image sequences are not read by the farm; left as a gap")
            return nil
        default:
            problem(reference.path, "unknown media reference \(reference.schema.text)")
            return nil
        }
        var at = at
        var duration = duration
        var sourceStart = (trimmed?.start ?? available?.start ?? .zero) - (available?.start ?? .zero)
        let timing = timeEffects(of: clip)
        if let window {
            if at < window.lowerBound {
                let cut = window.lowerBound - at
                sourceStart = sourceStart + cut * timing.speed
                duration = duration - cut
                at = window.lowerBound
            }
            duration = Rational.min(duration, window.upperBound - at)
            guard duration > .zero else { return nil }
        }
        if content.first?.key == "asset" && sourceStart.isNegative {
            problem(
                clip.path,
                "\(clip.label) starts \(Self.seconds(.zero - sourceStart)) before its media's available range")
            return nil
        }
        content += [("at", time(at)), ("duration", time(duration))]
        if content.first?.key == "asset" {
            if let frozen = timing.freeze {
                content.append(("freeze", time(sourceStart + frozen)))
            } else if timing.speed.isNegative {
                let length = duration * (Rational.zero - timing.speed)
                content.append(("source", .object([("start", time(sourceStart)), ("duration", time(length))])))
                content.append(("reverse", .bool(true)))
            } else {
                var source: [(key: String, value: JSONValue)] = [("start", time(sourceStart))]
                if timing.speed != .one { source.append(("duration", time(duration * timing.speed))) }
                content.append(("source", .object(source)))
            }
            // An OTIO video track carries pictures only: the sound is on its audio tracks.
            if kind == "video" { content.append(("muted", .bool(true))) }
        }
        if kind == "video" && content.first?.key == "asset" { content.append(("fit", .string("contain"))) }
        return .object(content)
    }

    /// Speed from `LinearTimeWarp`s (their scalars multiply) and a freeze from `FreezeFrame`;
    /// every other effect is noted.
    private func timeEffects(of clip: OTIOObject) -> (speed: Rational, freeze: Rational?) {
        var speed = Rational.one
        var freeze: Rational?
        for (index, value) in clip.array("effects").enumerated() {
            guard let effect = OTIOObject(value, path: clip.childPath("effects[\(index)]"), reader: self) else {
                continue
            }
            switch effect.schema.name {
            case "FreezeFrame":
                freeze = .zero
            case "LinearTimeWarp":
                guard let scalarValue = effect.raw("time_scalar"), let scalar = OTIOTime.number(scalarValue) else {
                    problem(effect.childPath("time_scalar"), "a LinearTimeWarp needs a numeric time_scalar")
                    continue
                }
                if scalar == .zero { freeze = .zero } else { speed = speed * scalar }
            default:
                var name = effect.schema.name
                if case .string(let effectName)? = effect.raw("effect_name"), !effectName.isEmpty { name = effectName }
                note(effect.path, "\(clip.label): effect \"\(name)\" is not rendered by the farm; ignored")
            }
        }
        return (speed, freeze)
    }

    private func notes(markersOf object: OTIOObject) {
        for (index, value) in object.array("markers").enumerated() {
            let marker = OTIOObject(value, path: object.childPath("markers[\(index)]"), reader: self)
            let label = marker.map { $0.name.isEmpty ? "a marker" : "marker \"\($0.name)\"" } ?? "a marker"
            note(
                object.childPath("markers[\(index)]"),
                "\(object.label): \(label) is not carried over (the farm has no markers)")
        }
    }

    /// `transition_type` and offsets as the farm's transition keys (without `between`).
    private func transition(_ object: OTIOObject) -> [(key: String, value: JSONValue)]? {
        guard let inValue = object.raw("in_offset"), let outValue = object.raw("out_offset") else {
            problem(object.path, "a Transition needs in_offset and out_offset")
            return nil
        }
        guard let inOffset = instant(inValue, path: object.childPath("in_offset")),
            let outOffset = instant(outValue, path: object.childPath("out_offset"))
        else { return nil }
        guard !inOffset.seconds.isNegative, !outOffset.seconds.isNegative else {
            problem(object.path, "\(object.label) has a negative offset")
            return nil
        }
        var type = ""
        if case .string(let text)? = object.raw("transition_type") { type = text }
        if type != "SMPTE_Dissolve" {
            note(object.path, "\(object.label): transition type \"\(type)\" is played as a dissolve")
        }
        return [
            ("type", .string("dissolve")), ("inOffset", time(inOffset.seconds)), ("outOffset", time(outOffset.seconds)),
        ]
    }

    // MARK: Durations and ranges

    /// The item's `source_range`, nil when absent or null.
    private func trimRange(of object: OTIOObject) -> OTIORange? {
        guard let value = object.raw("source_range"), value != .null else { return nil }
        let read = range(value, path: object.childPath("source_range"))
        if let read, rate == nil { rate = read.rate }
        return read
    }

    /// A clip's length in its track: its source range, else its media's available range.
    private func clipDuration(_ clip: OTIOObject) -> Rational? {
        if let value = clip.raw("source_range"), value != .null { return trimRange(of: clip)?.duration }
        if let reference = mediaReference(of: clip, quiet: true), let value = reference.raw("available_range"),
            value != .null, let available = range(value, path: reference.childPath("available_range"))
        {
            if rate == nil { rate = available.rate }
            return available.duration
        }
        problem(
            clip.path, "\(clip.label) has neither a source_range nor a media available_range: its length is unknown")
        return nil
    }

    /// A nested track's or stack's length: its source range, else its children's sum (track)
    /// or longest (stack).
    private func compositionDuration(_ object: OTIOObject) -> Rational? {
        if let trimmed = trimRange(of: object) { return trimmed.duration }
        var lengths: [Rational] = []
        for (index, value) in object.array("children").enumerated() {
            guard let child = OTIOObject(value, path: "\(object.path).children[\(index)]", reader: self) else {
                continue
            }
            switch child.schema.name {
            case "Clip": lengths.append(clipDuration(child) ?? .zero)
            case "Gap", "Filler": lengths.append(trimRange(of: child)?.duration ?? .zero)
            case "Stack", "Track", "Sequence": lengths.append(compositionDuration(child) ?? .zero)
            default: continue
            }
        }
        if object.schema.name == "Stack" { return lengths.max() ?? .zero }
        return lengths.reduce(.zero, +)
    }

    private func intersect(_ a: Range<Rational>?, _ b: Range<Rational>) -> Range<Rational> {
        guard let a else { return b }
        let lower = Rational.max(a.lowerBound, b.lowerBound)
        return lower..<Rational.max(lower, Rational.min(a.upperBound, b.upperBound))
    }

    // MARK: Media

    /// The clip's active media reference (`Clip.2`), or its only one (`Clip.1`).
    private func mediaReference(of clip: OTIOObject, quiet: Bool = false) -> OTIOObject? {
        var value: JSONValue?
        if clip.schema.version >= 2 {
            var key = "DEFAULT_MEDIA"
            if case .string(let active)? = clip.raw("active_media_reference_key") { key = active }
            if case .object(let references)? = clip.raw("media_references") {
                value = references.first { $0.key == key }?.value
            }
            if value == nil || value == .null {
                if !quiet { note(clip.path, "\(clip.label) has no media reference \"\(key)\"; left as a gap") }
                return nil
            }
            return OTIOObject(value!, path: clip.childPath("media_references.\(key)"), reader: self)
        }
        value = clip.raw("media_reference")
        guard let value, value != .null else {
            if !quiet { note(clip.path, "\(clip.label) has no media reference; left as a gap") }
            return nil
        }
        return OTIOObject(value, path: clip.childPath("media_reference"), reader: self)
    }

    /// The file an `ExternalReference` names, relinked; a problem when it does not exist.
    private func mediaPath(_ reference: OTIOObject, clip: OTIOObject) -> String? {
        guard case .string(let url)? = reference.raw("target_url"), !url.isEmpty else {
            problem(reference.childPath("target_url"), "\(clip.label): an ExternalReference needs a target_url")
            return nil
        }
        guard let decoded = OTIOMediaPath.path(fromURL: url) else {
            problem(reference.childPath("target_url"), "\(clip.label): not a file URL or path: \(url)")
            return nil
        }
        let path = OTIOMediaPath.relinked(decoded, with: options.relinks)
        let resolved = path.hasPrefix("/") ? path : (options.mediaRoot ?? folder).appendingPathComponent(path).path
        guard FileManager.default.fileExists(atPath: resolved) else {
            let hint =
                path == decoded
                ? "; --relink PREFIX=DIR maps another machine's folders here" : " (relinked from \(decoded))"
            problem(reference.childPath("target_url"), "\(clip.label): media file not found: \(resolved)\(hint)")
            return nil
        }
        return options.absolutePaths ? resolved : path
    }

    private func assetID(for path: String) -> String {
        if let known = assets.first(where: { $0.path == path }) { return known.id }
        let base = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        let stem = base.isEmpty ? "media" : base
        var id = stem
        var number = 2
        while assets.contains(where: { $0.id == id }) {
            id = "\(stem)-\(number)"
            number += 1
        }
        assets.append((id, path))
        return id
    }

    /// A solid colour generator's colour as "#RRGGBB", from a `color` parameter given as that
    /// text or as r, g, b fractions.
    private func solidColor(_ reference: OTIOObject) -> String? {
        guard case .string(let kind)? = reference.raw("generator_kind"), kind.lowercased().contains("solid"),
            case .object(let parameters)? = reference.raw("parameters"),
            let color = parameters.first(where: { $0.key.lowercased() == "color" })?.value
        else { return nil }
        if case .string(let text) = color, text.count == 7, text.hasPrefix("#") { return text.uppercased() }
        if case .object(let channels) = color {
            let values = ["r", "g", "b"].compactMap { key in
                channels.first { $0.key == key }.flatMap { OTIOTime.number($0.value) }
            }
            guard values.count == 3 else { return nil }
            return "#" + values.map { String(format: "%02X", Int(min(max($0.seconds, 0), 1) * 255 + 0.5)) }.joined()
        }
        return nil
    }

    /// A time as the project writes it: a decimal when exact, else "n/d".
    private func time(_ value: Rational) -> JSONValue { .string(value.exactText) }
}
