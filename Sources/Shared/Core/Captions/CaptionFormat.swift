/// The caption file formats the farm reads.
public enum CaptionFormat: String, Sendable, Codable, Hashable, CaseIterable {
    /// SubRip: numbered cues, `00:00:01,000 --> 00:00:02,500`.
    case srt
    /// WebVTT: a `WEBVTT` header, then cues with optional identifiers and settings.
    case webvtt

    /// The format a file's name says (`.srt`, `.vtt`), if any.
    public init?(fileName: String) {
        let lowered = fileName.lowercased()
        if lowered.hasSuffix(".srt") {
            self = .srt
        } else if lowered.hasSuffix(".vtt") {
            self = .webvtt
        } else {
            return nil
        }
    }

    /// What the text itself says: WebVTT begins with its signature, anything else is read as SubRip.
    public init(sniffing text: Substring) {
        self = text.hasPrefix("WEBVTT") ? .webvtt : .srt
    }
}
