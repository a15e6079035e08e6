import CFFmpeg
import FarmCore

/// The FFmpeg libraries this process runs with, as they report themselves: a render node with
/// other builds than its peers encodes other bytes, so `--version` names them.
public enum MediaLibraries {
    /// "libavformat 59.27.100, libavcodec 59.37.100, …".
    public static var versions: String {
        let libraries: [(String, UInt32)] = [
            ("libavformat", avformat_version()), ("libavcodec", avcodec_version()), ("libavutil", avutil_version()),
            ("libswscale", swscale_version()), ("libswresample", swresample_version()),
        ]
        return libraries.map { name, version in
            "\(name) \(version >> 16).\((version >> 8) & 0xFF).\(version & 0xFF)"
        }.joined(separator: ", ")
    }

    /// The version line every binary of the farm prints for `--version`.
    public static func versionText(_ version: String) -> String {
        "\(version) (commit \(BuildInfo.commit))\nFFmpeg: \(versions)"
    }
}
