/// `export.poster` and `export.thumbnails`: pictures of the output beside it.
extension ProjectParser {
    func parsePoster(_ value: JSONValue, _ path: String, _ log: DiagnosticLog) -> PosterSettings? {
        guard let object = JSONObjectReader(value, path: path, log: log) else { return nil }
        let time = object.optional("time", default: Rational(0), JSONField.time)
        let width = object.optional("width", default: nil) { JSONField.integer($0, $1, $2).map { Optional($0) } }
        let format = object.optional("format", default: .jpeg, JSONField.choice(StillFormat.self))
        object.rejectUnknownKeys()
        if let time, time.isNegative { log.add(object.childPath("time"), "must be 0 or more seconds (got \(time))") }
        let widthFits = (width ?? nil).map { checkStillWidth($0, object.childPath("width"), log) } ?? true
        guard let time, let width, let format, !time.isNegative, widthFits else { return nil }
        return PosterSettings(time: time, width: width, format: format)
    }

    func parseThumbnails(_ value: JSONValue, _ path: String, _ log: DiagnosticLog) -> ThumbnailSettings? {
        guard let object = JSONObjectReader(value, path: path, log: log) else { return nil }
        let every = object.required("every", JSONField.time)
        let width = object.optional("width", default: 160, JSONField.integer)
        let columns = object.optional("columns", default: 10, JSONField.integer)
        let format = object.optional("format", default: .jpeg, JSONField.choice(StillFormat.self))
        object.rejectUnknownKeys()
        // A tenth of a second at least: a thumbnail a frame is a second render, not a preview.
        if let every, every < Rational(1, 10) {
            log.add(object.childPath("every"), "must be at least 0.1 seconds (got \(every))")
        }
        let widthFits = width.map { checkStillWidth($0, object.childPath("width"), log) } ?? true
        let columnsFit = columns.map { (1...100).contains($0) } ?? true
        if let columns, !columnsFit { log.add(object.childPath("columns"), "must be from 1 to 100 (got \(columns))") }
        guard let every, let width, let columns, let format, !(every < Rational(1, 10)), widthFits, columnsFit else {
            return nil
        }
        return ThumbnailSettings(every: every, width: width, columns: columns, format: format)
    }

    func parsePreview(_ value: JSONValue, _ path: String, _ log: DiagnosticLog) -> PreviewSettings? {
        guard let object = JSONObjectReader(value, path: path, log: log) else { return nil }
        let defaults = PreviewSettings()
        let start = object.optional("start", default: defaults.start, JSONField.time)
        let duration = object.optional("duration", default: defaults.duration, JSONField.time)
        let width = object.optional("width", default: defaults.width, JSONField.integer)
        let fps = object.optional("fps", default: defaults.fps, JSONField.rate)
        object.rejectUnknownKeys()
        var fits = true
        if let start, start.isNegative {
            log.add(object.childPath("start"), "must be 0 or more seconds (got \(start))")
            fits = false
        }
        // A GIF holds every picture uncompressed against the last: a preview, not a film.
        if let duration, duration < Rational(1, 10) || Rational(30) < duration {
            log.add(object.childPath("duration"), "must be from 0.1 to 30 seconds (got \(duration))")
            fits = false
        }
        if let fps, fps < Rational(1) || Rational(50) < fps {
            log.add(object.childPath("fps"), "must be from 1 to 50 (got \(fps))")
            fits = false
        }
        if let width, !checkStillWidth(width, object.childPath("width"), log) { fits = false }
        guard let start, let duration, let width, let fps, fits else { return nil }
        return PreviewSettings(start: start, duration: duration, width: width, fps: fps)
    }

    /// The largest side a picture file of each format holds (WebP's is 16383 pixels).
    static func largestSide(_ format: StillFormat) -> Int { format == .webp ? 16383 : 65535 }

    /// Refuses, before anything renders, a thumbnail sheet that its format cannot hold: every
    /// 0.5 s of a 2-hour timeline, 10 a row, is 1,440 rows.
    func checkThumbnailSheet(of project: Project, _ log: DiagnosticLog) {
        guard let thumbnails = project.export.thumbnails else { return }
        let count = Int(
            StillFrames.thumbnailCount(every: thumbnails.every, fps: project.output.fps, frames: project.frameCount))
        let columns = min(thumbnails.columns, max(1, count))
        let tileHeight = StillFrames.height(
            forWidth: thumbnails.width, outputWidth: project.output.width, outputHeight: project.output.height)
        let (width, height) = (columns * thumbnails.width, (count + columns - 1) / columns * tileHeight)
        let largest = Self.largestSide(thumbnails.format)
        guard width > largest || height > largest else { return }
        log.add(
            "export.thumbnails",
            "\(count) thumbnails make a sheet of \(width)x\(height) pixels; \(thumbnails.format.rawValue) holds at "
                + "most \(largest) a side: set a longer every, more columns or a smaller width")
    }

    /// Whether `width` fits a still; says why not.
    private func checkStillWidth(_ width: Int, _ path: String, _ log: DiagnosticLog) -> Bool {
        guard width < 16 || width > 8192 || width % 2 != 0 else { return true }
        log.add(path, "must be an even number from 16 to 8192 (got \(width))")
        return false
    }
}
