import CFFmpeg
import Foundation

/// FFmpeg's log. Its last error line is kept, per thread, for `FFmpegError.check(explaining:)`:
/// an encoder that refuses to open says why only there. Lines are printed to standard error only
/// when asked for; otherwise the farm's single error message is the whole story.
public enum FFmpegLog {
    nonisolated(unsafe) private static var verbose = false
    private static let key = "farm.ffmpeg.lastError"

    /// Call once, before any FFmpeg work starts.
    public static func configure(verbose: Bool) {
        Self.verbose = verbose
        av_log_set_level(verbose ? AV_LOG_WARNING : AV_LOG_ERROR)
        av_log_set_callback { _, level, format, arguments in
            guard let format, level <= av_log_get_level() else { return }
            var buffer = [CChar](repeating: 0, count: 512)
            guard let arguments else { return }
            vsnprintf(&buffer, buffer.count, format, arguments)
            let line = String(cString: buffer).trimmingCharacters(in: .whitespacesAndNewlines)
            guard !line.isEmpty else { return }
            if level <= AV_LOG_ERROR { Thread.current.threadDictionary[FFmpegLog.key] = line }
            if FFmpegLog.verbose { FileHandle.standardError.write(Data(("ffmpeg: " + line + "\n").utf8)) }
        }
    }

    /// The last error FFmpeg logged on this thread since the last call, if any.
    static func takeLastError() -> String? {
        let dictionary = Thread.current.threadDictionary
        defer { dictionary.removeObject(forKey: key) }
        return dictionary[key] as? String
    }
}
