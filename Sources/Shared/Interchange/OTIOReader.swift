import FarmCore
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

    /// The assets so far, by first use.
    var assets: [(id: String, path: String)] = []
    /// The first frame and rate of each asset made from an `ImageSequenceReference`, by id.
    var sequences: [String: (first: Int, rate: Rational)] = [:]
    private var tracks: [JSONValue] = []
    /// Why each track that holds clips placed none, by its path.
    private var emptyTracks: [Diagnostic] = []
    var counts = (video: 0, audio: 0, clips: 0, gaps: 0, transitions: 0)
    var end = Rational.zero
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
        if !hasProblems && tracks.isEmpty {
            problem(stack.path, "nothing to render: no track of the timeline places a clip")
            for reason in emptyTracks { problem(reason.path, reason.message) }
        }
        if hasProblems { return nil }
        return project(named: timeline.name)
    }

    func project(named name: String) -> JSONValue {
        let canvas = options.canvas
        let fps = canvas?.fps ?? rate ?? Rational(24)
        var output: [(key: String, value: JSONValue)] = [
            ("width", .number(String(canvas?.width ?? 1920))), ("height", .number(String(canvas?.height ?? 1080))),
            ("fps", .string(fps.description)),
        ]
        output.append(("audio", .object([("sampleRate", .number("48000")), ("channels", .number("2"))])))
        return .object([
            ("output", .object(output)),
            (
                "assets",
                .object(
                    assets.map { asset in
                        var members: [(key: String, value: JSONValue)] = [("path", .string(asset.path))]
                        if let sequence = sequences[asset.id] {
                            members.append(("firstFrame", .number(String(sequence.first))))
                            members.append(("frameRate", .string(sequence.rate.description)))
                        }
                        return (asset.id, .object(members))
                    })
            ),
            ("tracks", .array(tracks)),
        ])
    }

    // MARK: Compositions

    /// A Stack's children drawn bottom to top from `offset` (timeline time of the stack's
    /// internal time 0), within `window`.
    func placeStack(_ stack: OTIOObject, offset: Rational, window: Range<Rational>?, kind: String?) {
        let (offset, window) = framed(stack, offset: offset, window: window)
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
                placeSequence([(index, child)], in: stack, offset: offset, window: window, kind: kind)
            default:
                problem(object.path, "\(object.schema.text) cannot be a child of a Stack here")
            }
        }
    }

    /// A composition placed at `offset` within `window`: its `source_range` shifts its children
    /// back by its start and cuts them to its duration (returned as the children's offset and
    /// window); its markers are noted.
    private func framed(_ composition: OTIOObject, offset: Rational, window: Range<Rational>?) -> (
        offset: Rational, window: Range<Rational>?
    ) {
        notes(markersOf: composition)
        // The farm renders no effect on a whole track or stack (a mask, a burn-in) but an audio
        // track's Audio Pan, which its items take (`audioPan`).
        for (index, value) in composition.array("effects").enumerated() {
            if let effect = OTIOObject(value, path: composition.childPath("effects[\(index)]"), reader: self),
                !Self.isAudioPan(effect, of: composition)
            {
                noteUnrendered(effect, of: composition)
            }
        }
        guard let trim = trimRange(of: composition) else { return (offset, window) }
        return (offset - trim.start, intersect(window, offset..<(offset + trim.duration)))
    }

    /// A Track's children one after another, as one farm track (nested compositions become
    /// tracks of their own right after it).
    func placeTrack(_ track: OTIOObject, offset: Rational, window: Range<Rational>?, kind: String?) {
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
        // An Audio Pan's keys run over the part of the track shown, from its start.
        let pan = audioPan(of: track, length: compositionDuration(track) ?? .zero).map { (curve: $0, origin: offset) }
        let (offset, window) = framed(track, offset: offset, window: window)
        placeSequence(
            Array(track.array("children").enumerated()), in: track, offset: offset, window: window,
            kind: ownKind ?? "video", pan: pan)
    }

    /// One farm track from `children` (with their indices in `parent`) laid end to end from
    /// `offset`; `pan`, the track's Audio Pan and the timeline time its keys count from, pans
    /// its items.
    func placeSequence(
        _ children: [(offset: Int, element: JSONValue)], in parent: OTIOObject, offset: Rational,
        window: Range<Rational>?, kind: String?, pan: (curve: PanCurve, origin: Rational)? = nil
    ) {
        let kind = kind ?? "video"
        var items: [JSONValue] = []
        var transitions: [JSONValue] = []
        var nested: [() -> Void] = []
        var cursor = Rational.zero
        /// The farm index of the clip that ends at `cursor`, and a transition waiting for the next.
        var previous: (index: Int, clip: OTIOPlacedClip)?
        var pending: (object: OTIOObject, offsets: (in: Rational, out: Rational))?
        /// How long the track has been empty at `cursor` (a gap); nil after a clip or a nested
        /// composition. At the track's start nothing lies before: any fade in fits.
        var empty: Rational? = nil
        var atStart = true
        var clips = (seen: 0, outside: 0, noted: 0, firstNote: nil as Diagnostic?)
        /// Placed clips and their farm indices, for the fades their effects ask for.
        var placedClips: [(object: OTIOObject, index: Int, duration: Rational)] = []
        for (index, child) in children {
            let here = parent.childPath("children[\(index)]")
            guard let object = OTIOObject(child, path: here, reader: self) else { continue }
            let start = cursor
            switch object.schema.name {
            case "Transition":
                if let waiting = pending {
                    note(waiting.object.path, "\(waiting.object.label) is followed by another transition; left out")
                }
                pending = transitionOffsets(object).map { (object, $0) }
                if previous == nil, empty == nil, !atStart, let waiting = pending {
                    note(waiting.object.path, "\(waiting.object.label) has no clip before it; left out")
                    pending = nil
                }
                continue
            case "Gap", "Filler":
                let length = trimRange(of: object)?.duration ?? .zero
                // A transition from a clip into a gap: the clip fades out over it, and a fade in
                // from the gap has what it leaves.
                var used = Rational.zero
                if let waiting = pending, let outgoing = previous {
                    let offsets = (waiting.offsets.in, min(waiting.offsets.out, length))
                    used = offsets.1
                    transitions.append(
                        transition(
                            waiting.object, offsets: offsets, cut: offset + start, outgoing: outgoing, incoming: nil))
                    counts.transitions += 1
                    pending = nil
                }
                cursor = cursor + length
                counts.gaps += object.enabled ? 1 : 0
                empty = (previous == nil ? empty ?? .zero : .zero) + length - used
                previous = nil
            case "Clip":
                let duration = clipDuration(object)
                cursor = cursor + (duration ?? .zero)
                guard object.enabled, let duration else {
                    previous = nil
                    break
                }
                clips.seen += 1
                // Outside the window its track or stack leaves: not shown, so its media is not
                // looked for (an EDL reel's events outside the reel's range).
                if let window, offset + start >= window.upperBound || offset + start + duration <= window.lowerBound {
                    clips.outside += 1
                    previous = nil
                    break
                }
                let notesBefore = notes.count
                let placed = clip(object, at: offset + start, duration: duration, window: window, kind: kind)
                if placed == nil, notes.count > notesBefore {
                    clips.noted += 1
                    clips.firstNote = clips.firstNote ?? notes.last
                }
                if let placed {
                    items.append(pan.map { panned(placed.item, origin: $0.origin, curve: $0.curve) } ?? placed.item)
                    placedClips.append((object, items.count - 1, duration))
                    counts.clips += 1
                    let incoming = (index: items.count - 1, clip: placed)
                    if let waiting = pending {
                        // From a gap or the track's start: the clip fades in, no further back
                        // than the gap reaches.
                        var offsets = waiting.offsets
                        if previous == nil, !atStart { offsets.in = min(offsets.in, empty ?? .zero) }
                        transitions.append(
                            transition(
                                waiting.object, offsets: offsets, cut: offset + start, outgoing: previous,
                                incoming: incoming))
                        counts.transitions += 1
                        pending = nil
                    }
                    previous = incoming
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
                note(waiting.object.path, "\(waiting.object.label) has a clip on neither side; left out")
                pending = nil
            }
            atStart = false
            if !["Gap", "Filler"].contains(object.schema.name) { empty = nil }
        }
        if let waiting = pending {
            if let outgoing = previous {
                // At the track's end: the last clip fades out.
                transitions.append(
                    transition(
                        waiting.object, offsets: waiting.offsets, cut: offset + cursor, outgoing: outgoing,
                        incoming: nil
                    ))
                counts.transitions += 1
            } else {
                note(waiting.object.path, "\(waiting.object.label) has no clip after it; left out")
            }
        }
        transitions += effectFades(of: placedClips, kind: kind, besides: transitions)
        if items.isEmpty && clips.seen > 0 {
            let shown = window.map { ($0.lowerBound - offset)..<($0.upperBound - offset) }
            emptyTracks.append(
                Diagnostic(path: parent.path, message: Self.whyEmpty(parent, clips: clips, shown: shown, span: cursor)))
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
    }

    /// Why a track's clips placed none: outside its window, or dropped with a note.
    static func whyEmpty(
        _ track: OTIOObject, clips: (seen: Int, outside: Int, noted: Int, firstNote: Diagnostic?),
        shown: Range<Rational>?, span: Rational
    ) -> String {
        var reasons: [String] = []
        if clips.outside > 0, let shown {
            reasons.append(
                "\(clips.outside) lie outside \(seconds(shown.lowerBound)) to \(seconds(shown.upperBound)) of the "
                    + "track, the part its source_range (or its parent's) shows; its children span 0 to "
                    + seconds(span))
        }
        if clips.noted > 0, let first = clips.firstNote {
            reasons.append("\(clips.noted) were left out, the first as \(first.path) says: \(first.message)")
        }
        let other = clips.seen - clips.outside - clips.noted
        if other > 0 { reasons.append("\(other) fall where the window leaves them no time") }
        let name = track.name.isEmpty ? "" : " \"\(track.name)\""
        return "track\(name) places none of its \(clips.seen) clips: " + reasons.joined(separator: "; ")
    }

    // MARK: Durations and ranges

    /// The item's `source_range`, nil when absent or null.
    func trimRange(of object: OTIOObject) -> OTIORange? {
        guard let value = object.raw("source_range"), value != .null else { return nil }
        let read = range(value, path: object.childPath("source_range"))
        if let read, rate == nil { rate = read.rate }
        return read
    }

    /// A clip's length in its track: its source range, else its media's available range.
    func clipDuration(_ clip: OTIOObject) -> Rational? {
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
    func compositionDuration(_ object: OTIOObject) -> Rational? {
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

    func intersect(_ a: Range<Rational>?, _ b: Range<Rational>) -> Range<Rational> {
        guard let a else { return b }
        let lower = Rational.max(a.lowerBound, b.lowerBound)
        return lower..<Rational.max(lower, Rational.min(a.upperBound, b.upperBound))
    }

    /// A time as the project writes it: a decimal when exact, else "n/d"; one finer than the
    /// project holds exactly (a speed's product) at its nearest flick.
    func time(_ value: Rational) -> JSONValue { .string(TimeGrid.held(value).exactText) }
}
