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
        let document: JSONValue
        do {
            document = try JSONParser.parse(data)
        } catch let error as JSONSyntaxError {
            throw ProjectError(file: file, diagnostics: [Diagnostic(path: "", message: "malformed JSON at \(error)")])
        }
        let log = DiagnosticLog()
        let project = parseProject(document, log: log)
        guard log.isEmpty, let project else { throw ProjectError(file: file, diagnostics: log.diagnostics) }
        return project
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
        root.rejectUnknownKeys()
        if let tracks, tracks.allSatisfy({ $0.items.isEmpty }) {
            log.add("tracks", "the timeline is empty: add at least one item")
        }
        let longest = Rational(24 * 3600)
        if let tracks, let end = tracks.flatMap(\.items).map(\.end).max(), longest < end {
            log.add("tracks", "the timeline ends at \(end) s; a project may last at most 24 hours (86400 s)")
        }
        guard let resolvedOutput, let resolvedExport, let assets, let tracks else { return nil }
        return Project(output: resolvedOutput, export: resolvedExport, assets: assets, tracks: tracks)
    }

    /// The sampling rates the AAC encoder accepts.
    static let aacSampleRates = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000]

    private var defaultOutput: OutputSettings {
        OutputSettings(
            width: 1920, height: 1080, fps: Rational(30), background: RGBColor(red: 0, green: 0, blue: 0),
            audio: AudioLayout(sampleRate: 48000, channels: 2))
    }

    private func defaultExport(fps: Rational) -> ExportSettings {
        ExportSettings(
            container: .mp4,
            video: .init(
                codec: .h264, crf: 20, bitrate: nil, preset: "veryfast", gop: defaultGOP(fps), lossless: false),
            audio: .init(codec: .aac, bitrate: 192_000))
    }

    /// Two seconds of frames: short enough for seeking players, long enough to compress well.
    private func defaultGOP(_ fps: Rational) -> Int { Int(max(1, (fps * Rational(2)).rounded)) }

    func parseOutput(_ value: JSONValue, _ path: String, _ log: DiagnosticLog) -> OutputSettings? {
        guard let object = JSONObjectReader(value, path: path, log: log) else { return nil }
        let defaults = defaultOutput
        let width = object.optional("width", default: defaults.width, JSONField.integer)
        let height = object.optional("height", default: defaults.height, JSONField.integer)
        for (key, size) in [("width", width), ("height", height)] {
            if let size, size < 16 || size > 8192 || size % 2 != 0 {
                log.add(object.childPath(key), "must be an even number from 16 to 8192 (got \(size))")
            }
        }
        let fps = object.optional("fps", default: defaults.fps, JSONField.time)
        if let fps, fps <= .zero || Rational(240) < fps {
            log.add(object.childPath("fps"), "must be > 0 and at most 240 (got \(fps))")
        }
        let background = object.optional("background", default: defaults.background) { value, path, log -> RGBColor? in
            guard let text = JSONField.string(value, path, log) else { return nil }
            guard let color = RGBColor(hex: text) else {
                log.add(path, "expected a colour as \"#RRGGBB\", got \(JSONField.quote(text))")
                return nil
            }
            return color
        }
        let audio = object.optional("audio", default: defaults.audio) { value, path, log -> AudioLayout? in
            guard let audio = JSONObjectReader(value, path: path, log: log) else { return nil }
            let rate = audio.optional("sampleRate", default: 48000, JSONField.integer)
            let channels = audio.optional("channels", default: 2, JSONField.integer)
            audio.rejectUnknownKeys()
            if let rate, rate < 8000 || rate > 192_000 {
                log.add(audio.childPath("sampleRate"), "must be from 8000 to 192000 (got \(rate))")
            }
            if let channels, channels < 1 || channels > 2 {
                log.add(audio.childPath("channels"), "must be 1 or 2 (got \(channels))")
            }
            guard let rate, let channels else { return nil }
            return AudioLayout(sampleRate: rate, channels: channels)
        }
        object.rejectUnknownKeys()
        guard let width, let height, let fps, let background, let audio, fps > .zero else { return nil }
        return OutputSettings(width: width, height: height, fps: fps, background: background, audio: audio)
    }

    func parseExport(_ value: JSONValue, _ path: String, _ log: DiagnosticLog, fps: Rational) -> ExportSettings? {
        guard let object = JSONObjectReader(value, path: path, log: log) else { return nil }
        let preset = object.optional("preset", default: nil) {
            JSONField.choice(ExportPreset.self)($0, $1, $2).map { Optional($0) }
        }
        let defaults = (preset ?? nil)?.settings(gop: defaultGOP(fps)) ?? defaultExport(fps: fps)
        let container = object.optional(
            "container", default: defaults.container, JSONField.choice(ExportSettings.Container.self))
        let video = object.optional("video", default: defaults.video) { value, path, log -> ExportSettings.Video? in
            guard let video = JSONObjectReader(value, path: path, log: log) else { return nil }
            let codec = video.optional(
                "codec", default: defaults.video.codec, JSONField.choice(ExportSettings.VideoCodec.self))
            let crf = video.optional("crf", default: defaults.video.crf, JSONField.integer)
            let bitrate = video.optional("bitrate", default: nil) { JSONField.integer($0, $1, $2).map { Optional($0) } }
            let preset = video.optional("preset", default: defaults.video.preset, JSONField.string)
            let gop = video.optional("gop", default: defaults.video.gop, JSONField.integer)
            let lossless = video.optional("lossless", default: defaults.video.lossless, JSONField.bool)
            video.rejectUnknownKeys()
            if let crf, crf < 0 || crf > 51 { log.add(video.childPath("crf"), "must be from 0 to 51 (got \(crf))") }
            if let gop, gop < 1 { log.add(video.childPath("gop"), "must be at least 1 (got \(gop))") }
            if let bitrate = bitrate ?? nil, bitrate < 10_000 {
                log.add(video.childPath("bitrate"), "must be at least 10000 bits per second (got \(bitrate))")
            }
            let presets = [
                "ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow",
                "placebo",
            ]
            if let preset, !presets.contains(preset) {
                log.add(
                    video.childPath("preset"),
                    "\(JSONField.quote(preset)) is not one of \(presets.joined(separator: ", "))")
            }
            guard let codec, let crf, let bitrate, let preset, let gop, let lossless else { return nil }
            return .init(codec: codec, crf: crf, bitrate: bitrate, preset: preset, gop: gop, lossless: lossless)
        }
        let audio = object.optional("audio", default: defaults.audio) { value, path, log -> ExportSettings.Audio? in
            guard let audio = JSONObjectReader(value, path: path, log: log) else { return nil }
            let codec = audio.optional(
                "codec", default: defaults.audio.codec, JSONField.choice(ExportSettings.AudioCodec.self))
            let bitrate = audio.optional("bitrate", default: defaults.audio.bitrate, JSONField.integer)
            audio.rejectUnknownKeys()
            if let bitrate, bitrate < 8000 {
                log.add(audio.childPath("bitrate"), "must be at least 8000 (got \(bitrate))")
            }
            guard let codec, let bitrate else { return nil }
            return .init(codec: codec, bitrate: bitrate)
        }
        object.rejectUnknownKeys()
        guard let container, let video, let audio else { return nil }
        let export = ExportSettings(container: container, video: video, audio: audio)
        if export.video.codec == .av1 && export.video.lossless {
            log.add(object.childPath("video.lossless"), "av1 (SVT-AV1) has no lossless mode; use h264, hevc or ffv1")
        }
        for (key, codec, needs) in export.codecsUnsupported(by: container) {
            log.add(object.childPath(key), "\(codec) needs container \(needs) (container is \(container.rawValue))")
        }
        return export
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
            object.rejectUnknownKeys()
            guard let file, !file.isEmpty else {
                if file?.isEmpty == true { log.add(object.childPath("path"), "is empty") }
                valid = false
                continue
            }
            let url = file.hasPrefix("/") ? URL(fileURLWithPath: file) : mediaRoot.appendingPathComponent(file)
            assets[id] = Asset(path: url.standardizedFileURL.path)
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
            let transform
        else {
            return nil
        }
        if kind == .audio {
            for (index, item) in items.enumerated() where item.asset == nil {
                log.add("\(object.childPath("items"))[\(index)]", "an audio track plays media only; use \"asset\"")
            }
            if !transform.isIdentity { log.add(object.path, "an audio track has no pictures to transform") }
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
        let pastEnd = object.optional("pastEnd", default: nil) {
            JSONField.choice(PastEnd.self)($0, $1, $2).map { Optional($0) }
        }
        let muted = object.optional("muted", default: false, JSONField.bool)
        let transform = parseTransform(object)
        let preservesPitch = object.optional("preservePitch", default: false, JSONField.bool)
        let timeMap = parseTimeMap(
            object, log: log, duration: duration,
            source: sourceStart.flatMap { start in sourceDuration.map { (start, $0) } }, fps: fps)
        if case .media = content {
        } else {
            for key in ["source", "pastEnd", "volume", "timeMap", "freeze", "reverse", "preservePitch"]
            where object.has(key) {
                log.add(object.childPath(key), "a generated picture has no media; remove \"\(key)\"")
            }
        }
        object.rejectUnknownKeys()
        guard timeMap.valid, let preservesPitch, let content, let transform, let at, let duration, let sourceStart,
            let sourceDuration,
            let fit, let frame,
            let crop,
            let opacity, let volume, let pastEnd, let muted, !at.isNegative, duration > .zero, sourceDuration > .zero,
            !sourceStart.isNegative
        else { return nil }
        var item = Item(
            content: content, at: at, duration: duration, sourceStart: sourceStart, sourceDuration: sourceDuration,
            fit: fit, frame: frame, crop: crop, opacity: opacity, volume: volume, pastEnd: pastEnd, muted: muted)
        item.transform = transform
        item.timeMap = timeMap.map
        item.preservesPitch = preservesPitch
        return item
    }

    func parseAnimated<V>(
        _ value: JSONValue, _ path: String, _ log: DiagnosticLog, parse: (JSONValue, String, DiagnosticLog) -> V?
    ) -> Animated<V>? {
        guard case .object = value else { return parse(value, path, log).map { .constant($0) } }
        guard let object = JSONObjectReader(value, path: path, log: log) else { return nil }
        let keys = object.required("keys") { value, keysPath, log -> [Keyframe<V>]? in
            guard case .array(let elements) = value, !elements.isEmpty else {
                log.add(keysPath, "expected a non-empty array of [time, value] pairs")
                return nil
            }
            var keys: [Keyframe<V>] = []
            for (index, element) in elements.enumerated() {
                let keyPath = "\(keysPath)[\(index)]"
                guard case .array(let pair) = element, pair.count == 2 || pair.count == 3 else {
                    log.add(keyPath, "expected [time, value] or [time, value, interpolation]")
                    continue
                }
                let interpolation =
                    pair.count == 3 ? parseInterpolation(pair[2], "\(keyPath)[2]", log) : .linear
                guard let time = JSONField.time(pair[0], "\(keyPath)[0]", log),
                    let value = parse(pair[1], "\(keyPath)[1]", log), let interpolation
                else { continue }
                if time.isNegative { log.add("\(keyPath)[0]", "must be >= 0 (got \(time))") }
                if let previous = keys.last, time <= previous.time {
                    log.add("\(keyPath)[0]", "key times must increase (\(time) after \(previous.time))")
                }
                keys.append(Keyframe(time: time, value: value, interpolation: interpolation))
            }
            return keys.count == elements.count ? keys : nil
        }
        object.rejectUnknownKeys()
        return keys.map { .keys($0) }
    }

    /// A key's curve to the next key: a name, or `{"bezier": [x1, y1, x2, y2]}` with x in 0...1.
    func parseInterpolation(_ value: JSONValue, _ path: String, _ log: DiagnosticLog) -> Interpolation? {
        let names = Interpolation.names.map(\.name)
        if case .string(let name) = value {
            if let known = Interpolation.names.first(where: { $0.name == name }) { return known.value }
            let hint = closestWord(to: name, in: names).map { " (did you mean \"\($0)\"?)" } ?? ""
            log.add(
                path,
                "unknown interpolation \(JSONField.quote(name))\(hint); use \(names.joined(separator: ", ")) "
                    + "or {\"bezier\": [x1, y1, x2, y2]}"
            )
            return nil
        }
        guard let object = JSONObjectReader(value, path: path, log: log) else { return nil }
        let points = object.required("bezier") { value, path, log -> [Double]? in
            guard case .array(let elements) = value, elements.count == 4 else {
                log.add(path, "expected [x1, y1, x2, y2], got \(JSONField.describe(value))")
                return nil
            }
            let numbers = elements.enumerated().compactMap { JSONField.number($1, "\(path)[\($0)]", log) }
            guard numbers.count == 4 else { return nil }
            for index in [0, 2] where !(0...1).contains(numbers[index]) {
                log.add("\(path)[\(index)]", "a control point's x must be from 0 to 1 (got \(numbers[index]))")
                return nil
            }
            return numbers
        }
        object.rejectUnknownKeys()
        return points.map { .bezier(x1: $0[0], y1: $0[1], x2: $0[2], y2: $0[3]) }
    }

    func parseUnitValue(_ value: JSONValue, _ path: String, _ log: DiagnosticLog) -> Double? {
        guard let number = JSONField.number(value, path, log) else { return nil }
        guard (0...1).contains(number) else {
            log.add(path, "must be from 0 to 1 (got \(JSONField.describe(value)))")
            return nil
        }
        return number
    }

    func parseGain(_ value: JSONValue, _ path: String, _ log: DiagnosticLog) -> Double? {
        guard let number = JSONField.number(value, path, log) else { return nil }
        guard (0...16).contains(number) else {
            log.add(path, "must be a gain from 0 to 16 (got \(JSONField.describe(value)))")
            return nil
        }
        return number
    }

    func parseRect(_ value: JSONValue, _ path: String, _ log: DiagnosticLog) -> Rect? {
        guard case .array(let elements) = value, elements.count == 4 else {
            log.add(path, "expected [x, y, width, height] as fractions, got \(JSONField.describe(value))")
            return nil
        }
        let numbers = elements.enumerated().compactMap { JSONField.number($1, "\(path)[\($0)]", log) }
        guard numbers.count == 4 else { return nil }
        guard numbers[2] > 0, numbers[3] > 0 else {
            log.add(path, "width and height must be > 0")
            return nil
        }
        guard numbers.allSatisfy({ abs($0) <= 1000 }) else {
            log.add(path, "fractions must be from -1000 to 1000")
            return nil
        }
        return Rect(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3])
    }
}
