import FarmCore
import FarmStore
import Foundation

/// The words and figures operators read: one way to say a job, a chunk, a worker or an attempt.
enum StatusText {
    /// A job's state as shown: a paused live job says so.
    static func state(_ job: JobStatus) -> String {
        job.paused && !job.isFinished ? "\(job.state.rawValue) (paused)" : job.state.rawValue
    }

    static func progress(_ job: JobStatus) -> String {
        String(format: "%5.1f%%", job.percent)
    }

    static func fps(_ value: Double?) -> String { value.map(Format.rate) ?? "-" }

    /// "requires 4k · renders on farm 0.5.0, renderer 4, x264 AVX2, …", or nil when neither.
    static func placement(_ job: JobStatus) -> String? {
        var parts: [String] = []
        if !job.requires.isEmpty { parts.append("requires \(job.requires.joined(separator: ","))") }
        if let kind = job.renderKind { parts.append("renders on \(kind)") }
        return parts.isEmpty ? nil : parts.joined(separator: " · ")
    }

    static func eta(_ seconds: Double?) -> String { seconds.map(Format.clock) ?? "-" }

    /// A video chunk's frames ("0..60"), an audio block's sound in seconds ("0.00..10.01 s").
    static func range(_ chunk: ChunkStatus) -> String {
        guard let rate = chunk.sampleRate.map(Double.init) else { return "\(chunk.start)..\(chunk.end)" }
        return String(format: "%.2f..%.2f s", Double(chunk.start) / rate, Double(chunk.end) / rate)
    }

    /// How far a chunk is, in its unit: "30/60" frames, or "4.0/10.0 s" of sound.
    static func done(_ chunk: ChunkStatus) -> String {
        guard let rate = chunk.sampleRate.map(Double.init) else {
            return "\(chunk.framesDone ?? 0)/\(chunk.end - chunk.start)"
        }
        return String(format: "%.1f/%.1f s", chunk.soundSeconds ?? 0, Double(chunk.end - chunk.start) / rate)
    }

    /// What an attempt made, in its unit: "60 frames" or "10.0 s of sound".
    static func made(_ attempt: AttemptStatus) -> String {
        if let sound = attempt.soundSeconds { return String(format: "%.1f s of sound", sound) }
        // An audio block that made nothing made no sound, not "0 frames".
        if attempt.kind != .video { return "-" }
        return Format.count(Int(attempt.framesDone ?? 0), "frame")
    }

    /// How fast: frames per second, or seconds of sound per second of work ("18.5x").
    static func speed(fps: Double?, soundSeconds: Double?, seconds: Double?) -> String {
        if let sound = soundSeconds {
            guard let seconds, seconds > 0, sound > 0 else { return "-" }
            return String(format: "%.1fx", sound / seconds)
        }
        return fps.map { "\(Format.rate($0)) fps" } ?? "-"
    }

    /// "chunk 3", "audio block 1": how every view and error names a work item.
    static func chunkName(_ kind: ChunkKind, _ index: Int) -> String {
        switch kind {
        case .video: "chunk \(index)"
        case .audio: "audio block \(index)"
        case .loudness: "loudness block \(index)"
        }
    }

    /// `reused`: how many of the done the segment cache did.
    static func counts(_ counts: ChunkCounts, reused: Int = 0) -> String {
        // An ended job's chunks that no one will render are unfinished, not queued.
        if counts.unfinished > 0 {
            return "\(counts.done) done\(fromCache(reused)) · \(counts.unfinished) unfinished · \(counts.total) total"
        }
        return "\(counts.queued) queued · \(counts.running) running · \(counts.done) done\(fromCache(reused)) · "
            + "\(counts.failed) failed · \(counts.total) total"
    }

    /// `15 video chunks and 3 audio blocks` (and loudness blocks), as `farm render` counts
    /// them; `18 chunks` where the kinds are not known.
    static func work(_ detail: JobDetail) -> String {
        guard let kinds = detail.kinds else { return Format.count(detail.job.chunks.total, "chunk") }
        var parts = [Format.count(kinds.video, "video chunk"), Format.count(kinds.audio, "audio block")]
        if kinds.loudness > 0 { parts.append(Format.count(kinds.loudness, "loudness block")) }
        return parts.dropLast().joined(separator: ", ") + " and " + parts.last!
    }

    static func fromCache(_ reused: Int) -> String {
        reused > 0 ? " (\(reused) from the segment cache)" : ""
    }

    /// `3s ago`, `5m ago`, `2h ago`, `4d ago` for an ISO 8601 time.
    static func age(_ iso: String?, now: Date = Date()) -> String {
        guard let iso, let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(iso) else {
            return "-"
        }
        return age(seconds: now.timeIntervalSince(date))
    }

    static func age(seconds: Double) -> String {
        let s = Int(max(0, seconds))
        switch s {
        case ..<60: return "\(s)s ago"
        case ..<3600: return "\(s / 60)m ago"
        case ..<86_400: return "\(s / 3600)h ago"
        default: return "\(s / 86_400)d ago"
        }
    }

    /// One attempt's error, with where it happened.
    static func error(_ attempt: AttemptStatus) -> String {
        "\(chunkName(attempt.kind, attempt.chunk)) attempt \(attempt.attempt) on \(attempt.worker) "
            + "(\(attempt.outcome.rawValue)): \(attempt.error ?? "no reason given")"
    }

    /// The closing line of a watch: the output and a summary, or why there is none.
    static func summary(_ detail: JobDetail, reused: Int = 0) -> String {
        let job = detail.job
        let attempts = detail.chunks.map(\.attempt).reduce(0, +)
        let took = job.elapsedSeconds.map { " in \(Format.seconds($0))" } ?? ""
        switch job.state {
        case .done:
            let rate = job.averageFps.map { " (\(Format.rate($0)) fps)" } ?? ""
            // After a retry (or with chunks from the cache) the time and rate are this run's:
            // say which frames they are for.
            let rendered =
                job.framesRendered < job.frameCount ? " (\(job.framesRendered) rendered in this run)" : ""
            return "job \(job.id) done: \(job.output), \(job.frameCount) frames\(rendered)\(took)\(rate), "
                + "\(work(detail))\(fromCache(reused)), \(attempts) attempts"
        case .cancelled:
            return
                "job \(job.id) cancelled\(took) after \(job.chunks.done) of \(job.chunks.total) chunks; "
                + "no output written"
        default:
            return "job \(job.id) \(job.state.rawValue)\(took): \(job.error ?? "no reason given")"
        }
    }
}
