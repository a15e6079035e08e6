/// `export.video`, and each rendition's `video` over it.
extension ProjectParser {
    static let x264Presets = [
        "ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow", "placebo",
    ]

    /// `gop` is refused where `allowsGOP` is false: every rendition keeps the export's, so their
    /// keyframes share one grid.
    func parseVideo(
        _ value: JSONValue, _ path: String, _ log: DiagnosticLog, defaults: ExportSettings.Video, allowsGOP: Bool = true
    ) -> ExportSettings.Video? {
        guard let video = JSONObjectReader(value, path: path, log: log) else { return nil }
        let codec = video.optional("codec", default: defaults.codec, JSONField.choice(ExportSettings.VideoCodec.self))
        let crf = video.optional("crf", default: defaults.crf, JSONField.integer)
        let optionalInteger = { (key: String, fallback: Int?) in
            video.optional(key, default: fallback) { JSONField.integer($0, $1, $2).map { Optional($0) } }
        }
        let bitrate = optionalInteger("bitrate", defaults.bitrate)
        let maxrate = optionalInteger("maxrate", defaults.maxrate)
        let bufsize = optionalInteger("bufsize", defaults.bufsize)
        let preset = video.optional("preset", default: defaults.preset, JSONField.string)
        let gop = allowsGOP ? video.optional("gop", default: defaults.gop, JSONField.integer) : defaults.gop
        let lossless = video.optional("lossless", default: defaults.lossless, JSONField.bool)
        let options = video.optional("encoderOptions", default: defaults.encoderOptions, parseEncoderOptions)
        video.rejectUnknownKeys()
        // Only the keys written here: a rendition's inherited values were checked where written.
        let written = { (key: String) in video.has(key) }
        if let crf, written("crf"), crf < 0 || crf > 51 {
            log.add(video.childPath("crf"), "must be from 0 to 51 (got \(crf))")
        }
        if let gop, written("gop"), gop < 1 { log.add(video.childPath("gop"), "must be at least 1 (got \(gop))") }
        for (key, rate) in [("bitrate", bitrate), ("maxrate", maxrate)] {
            if let rate = rate ?? nil, written(key), rate < 10_000 {
                log.add(video.childPath(key), "must be at least 10000 bits per second (got \(rate))")
            }
        }
        if let bufsize = bufsize ?? nil, written("bufsize") {
            if bufsize < 10_000 { log.add(video.childPath("bufsize"), "must be at least 10000 bits (got \(bufsize))") }
            if (maxrate ?? nil) == nil {
                log.add(video.childPath("bufsize"), "needs maxrate, the rate its buffer is filled at")
            }
        }
        if let preset, written("preset"), !Self.x264Presets.contains(preset) {
            log.add(
                video.childPath("preset"),
                "\(JSONField.quote(preset)) is not one of \(Self.x264Presets.joined(separator: ", "))")
        }
        guard let codec, let crf, let bitrate, let maxrate, let bufsize, let preset, let gop, let lossless, let options
        else { return nil }
        var parsed = ExportSettings.Video(
            codec: codec, crf: crf, bitrate: bitrate, preset: preset, gop: gop, lossless: lossless,
            encoderOptions: options)
        parsed.maxrate = maxrate
        parsed.bufsize = bufsize
        return parsed
    }
}
