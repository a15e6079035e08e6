/// What decides the bytes a worker encodes besides the project: the farm's release, the
/// renderer's version, the FFmpeg libraries, the instruction set libx264 may use and the fonts
/// installed for titles. Two workers of one kind encode any chunk to the same bytes; two of
/// different kinds may not (libx264 follows its instruction set, a new FFmpeg may round a
/// filter otherwise), so a job's chunks are all rendered by one kind (`farm_claim`) and a
/// cached segment is reused only for a job of the kind that made it.
public struct RenderNodeKind: Codable, Sendable, Hashable {
    public var farm: String
    public var renderer: Int
    /// "libavformat 59.27.100, libavcodec 59.37.100, …".
    public var ffmpeg: String
    /// libx264's `asm` levels ("MMX2,…,AVX2"), or "native" off x86 where x264 picks its own.
    public var x264: String
    /// A digest of every font file fontconfig lists (path and size).
    public var fonts: String

    public init(farm: String, renderer: Int, ffmpeg: String, x264: String, fonts: String) {
        self.farm = farm
        self.renderer = renderer
        self.ffmpeg = ffmpeg
        self.x264 = x264
        self.fonts = fonts
    }

    /// The kind's name in the database: 12 hex digits of the digest of every field.
    public var signature: String {
        String(SHA256.hex(of: "\(farm)\n\(renderer)\n\(ffmpeg)\n\(x264)\n\(fonts)").prefix(12))
    }

    /// The highest instruction-set level libx264 may use: what tells mixed CPUs apart.
    public var instructionSet: String {
        x264.split(separator: ",").last.map(String.init) ?? x264
    }

    /// One line for operators: "farm 0.5.0, renderer 4, x264 AVX2, libavcodec 59.37.100, fonts 1a2b3c".
    public var summary: String {
        let codec =
            ffmpeg.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            .first { $0.hasPrefix("libavcodec") } ?? ffmpeg
        return "farm \(farm), renderer \(renderer), x264 \(instructionSet), \(codec), fonts \(fonts.prefix(6))"
    }

    /// The kind a worker older than 0.6 is taken to be: its release alone, which no worker
    /// that reports its kind shares.
    public static func unreported(version: String) -> (signature: String, summary: String) {
        ("farm-" + version, "farm \(version) (kind not reported)")
    }
}
