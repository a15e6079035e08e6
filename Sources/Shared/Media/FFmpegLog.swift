import CFFmpeg
import FarmCore
import Foundation

/// FFmpeg's log. Its last error line is kept, per thread, for `FFmpegError.check(explaining:)`:
/// an encoder that refuses to open says why only there. Lines are printed to standard error only
/// when asked for; otherwise the farm's single error message is the whole story.
public enum FFmpegLog {
    nonisolated(unsafe) private static var verbose = false
    private static let key = "farm.ffmpeg.lastError"
    private static let sinkKey = "farm.ffmpeg.attemptLog"

    /// Call once, before any FFmpeg work starts.
    public static func configure(verbose: Bool) {
        Self.verbose = verbose
        // Warnings are formatted always: an attempt's log keeps them (`capturing`), and the
        // terminal shows them only with --verbose.
        av_log_set_level(AV_LOG_WARNING)
        av_log_set_callback { _, level, format, arguments in
            guard let format, level <= av_log_get_level() else { return }
            var buffer = [CChar](repeating: 0, count: 512)
            guard let arguments else { return }
            vsnprintf(&buffer, buffer.count, format, arguments)
            let line = String(cString: buffer).trimmingCharacters(in: .whitespacesAndNewlines)
            guard !line.isEmpty else { return }
            let thread = Thread.current.threadDictionary
            if level <= AV_LOG_ERROR { thread[FFmpegLog.key] = line }
            (thread[FFmpegLog.sinkKey] as? AttemptLog)?.append(
                "ffmpeg: " + line, level: level <= AV_LOG_ERROR ? "error" : "warning")
            if FFmpegLog.verbose { FileHandle.standardError.writeUnlessClosed(Data(("ffmpeg: " + line + "\n").utf8)) }
        }
    }

    /// Runs `body` with FFmpeg's warnings and errors on this thread also written to `log`.
    /// (Lines FFmpeg logs from its own threads, a frame-threaded decoder's, are not.)
    public static func capturing<T>(into log: AttemptLog, _ body: () throws -> T) rethrows -> T {
        let thread = Thread.current.threadDictionary
        thread[sinkKey] = log
        defer { thread.removeObject(forKey: sinkKey) }
        return try body()
    }

    /// The last error FFmpeg logged on this thread since the last call, if any.
    static func takeLastError() -> String? {
        let dictionary = Thread.current.threadDictionary
        defer { dictionary.removeObject(forKey: key) }
        return dictionary[key] as? String
    }
}
