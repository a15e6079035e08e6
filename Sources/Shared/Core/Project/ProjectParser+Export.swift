/// The `output` and `export` sections, with their defaults and the named presets.
extension ProjectParser {
    /// The sampling rates the AAC encoder accepts.
    static let aacSampleRates = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000]

    var defaultOutput: OutputSettings {
        OutputSettings(
            width: 1920, height: 1080, fps: Rational(30), background: RGBColor(red: 0, green: 0, blue: 0),
            audio: AudioLayout(sampleRate: 48000, channels: 2))
    }

    func defaultExport(fps: Rational) -> ExportSettings {
        ExportSettings(
            container: .mp4,
            video: .init(
                codec: .h264, crf: 20, bitrate: nil, preset: "veryfast", gop: defaultGOP(fps), lossless: false),
            audio: .init(codec: .aac, bitrate: 192_000))
    }

    /// Two seconds of frames: short enough for seeking players, long enough to compress well.
    func defaultGOP(_ fps: Rational) -> Int { Int(max(1, (fps * Rational(2)).rounded)) }

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
        let fps = object.optional("fps", default: defaults.fps, JSONField.rate)
        if let fps, fps <= .zero || Rational(240) < fps {
            log.add(object.childPath("fps"), "must be > 0 and at most 240 (got \(fps))")
        }
        let background = object.optional("background", default: defaults.background, parseColor)
        let audio = object.optional("audio", default: defaults.audio) { value, path, log -> AudioLayout? in
            guard let audio = JSONObjectReader(value, path: path, log: log) else { return nil }
            let rate = audio.optional("sampleRate", default: 48000, JSONField.integer)
            let channels = audio.optional("channels", default: 2, JSONField.integer)
            audio.rejectUnknownKeys()
            if let rate, rate < 8000 || rate > 192_000 {
                log.add(audio.childPath("sampleRate"), "must be from 8000 to 192000 (got \(rate))")
            }
            if let channels, !AudioLayout.channelCounts.contains(channels) {
                log.add(audio.childPath("channels"), "must be 1, 2 or 6 (got \(channels))")
            }
            guard let rate, let channels else { return nil }
            return AudioLayout(sampleRate: rate, channels: channels)
        }
        let range = object.optional("dynamicRange", default: .sdr, JSONField.choice(DynamicRange.self))
        let grade = object.optional("grade", default: nil) { parseGrade($0, $1, $2).map { Optional($0) } }
        object.rejectUnknownKeys()
        guard let width, let height, let fps, let background, let audio, let range, let grade, fps > .zero else {
            return nil
        }
        return OutputSettings(
            width: width, height: height, fps: fps, background: background, audio: audio, dynamicRange: range,
            grade: grade)
    }

    func parseExport(_ value: JSONValue, _ path: String, _ log: DiagnosticLog, fps: Rational) -> ExportSettings? {
        guard let object = JSONObjectReader(value, path: path, log: log) else { return nil }
        let preset = object.optional("preset", default: nil) {
            JSONField.choice(ExportPreset.self)($0, $1, $2).map { Optional($0) }
        }
        let defaults = (preset ?? nil)?.settings(gop: defaultGOP(fps)) ?? defaultExport(fps: fps)
        let container = object.optional(
            "container", default: defaults.container, JSONField.choice(ExportSettings.Container.self))
        let video = object.optional("video", default: defaults.video) {
            parseVideo($0, $1, $2, defaults: defaults.video)
        }
        let audio = object.optional("audio", default: defaults.audio) { value, path, log -> ExportSettings.Audio? in
            guard let audio = JSONObjectReader(value, path: path, log: log) else { return nil }
            let codec = audio.optional(
                "codec", default: defaults.audio.codec, JSONField.choice(ExportSettings.AudioCodec.self))
            let bitrate = audio.optional("bitrate", default: defaults.audio.bitrate, JSONField.integer)
            let loudness = audio.optional("loudness", default: nil) { value, path, log -> LoudnessTarget?? in
                parseLoudness(value, path, log).map { .some($0) }
            }
            audio.rejectUnknownKeys()
            if let bitrate, bitrate < 8000 {
                log.add(audio.childPath("bitrate"), "must be at least 8000 (got \(bitrate))")
            }
            guard let codec, let bitrate, let loudness else { return nil }
            return .init(codec: codec, bitrate: bitrate, loudness: loudness)
        }
        let poster = object.optional("poster", default: nil) { parsePoster($0, $1, $2).map { Optional($0) } }
        let thumbnails = object.optional("thumbnails", default: nil) {
            parseThumbnails($0, $1, $2).map { Optional($0) }
        }
        let preview = object.optional("preview", default: nil) { parsePreview($0, $1, $2).map { Optional($0) } }
        let renditions: [Rendition]?? =
            video.map { video in
                object.optional("renditions", default: nil) { parseRenditions($0, $1, $2, video: video) }
            } ?? .some(nil)
        object.rejectUnknownKeys()
        guard let container, let video, let audio, let poster, let thumbnails, let preview, let renditions else {
            return nil
        }
        // Image frames are their own container unless one is written.
        let framed = !object.has("container") && video.codec.isImage
        var export = ExportSettings(container: framed ? .frames : container, video: video, audio: audio)
        export.poster = poster
        export.thumbnails = thumbnails
        export.preview = preview
        export.renditions = renditions
        if export.video.codec == .av1 && export.video.lossless {
            log.add(object.childPath("video.lossless"), "av1 (SVT-AV1) has no lossless mode; use h264, hevc or ffv1")
        }
        if export.container == .frames, !(renditions ?? []).isEmpty {
            log.add(
                object.childPath("renditions"),
                "numbered frames are one size in one format; renditions need container mp4, mov, mkv or hls")
        }
        for (key, codec, needs) in export.codecsUnsupported(by: export.container) {
            log.add(
                object.childPath(key), "\(codec) needs container \(needs) (container is \(export.container.rawValue))")
        }
        return export
    }

    /// Private options the farm sets itself: chunks join only if every encoder has the farm's
    /// GOP, rate control and level, so these are written with `gop`, `crf`, `preset`, `lossless`.
    static let farmEncoderOptions: Set<String> = [
        "preset", "crf", "qp", "x264-params", "x264opts", "x265-params", "svtav1-params", "vendor",
    ]

    /// `{"tune": "film", "aq-mode": 2}`: names to strings or numbers, passed to the encoder as text.
    func parseEncoderOptions(_ value: JSONValue, _ path: String, _ log: DiagnosticLog) -> [String: String]? {
        guard case .object(let members) = value else {
            log.add(path, "expected an object of encoder options, got \(value.kindDescription)")
            return nil
        }
        var options: [String: String] = [:]
        var valid = true
        for (key, member) in members {
            let memberPath = "\(path).\(JSONField.shortened(key))"
            if Self.farmEncoderOptions.contains(key) {
                log.add(memberPath, "is set by the farm; use export.video's crf, preset, gop and lossless")
                valid = false
                continue
            }
            switch member {
            case .string(let text): options[key] = text
            case .number(let literal): options[key] = literal
            default:
                log.add(memberPath, "expected a string or a number, got \(member.kindDescription)")
                valid = false
            }
        }
        return valid ? options : nil
    }
}
