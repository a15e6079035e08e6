import CFFmpeg
import FarmCore
import Foundation

/// A text subtitle encoder: `mov_text` (MP4, MOV) or `subrip` (Matroska). FFmpeg's text
/// encoders take a cue as an ASS dialogue line and need an ASS script header to open, as
/// a decoder would hand them; the header here is FFmpeg's own default one.
final class SubtitleEncoder {
    let context: UnsafeMutablePointer<AVCodecContext>

    /// The default ASS header FFmpeg's text decoders write: one style, named Default.
    private static let header = """
        [Script Info]
        ScriptType: v4.00+
        PlayResX: 384
        PlayResY: 288
        ScaledBorderAndShadow: yes

        [V4+ Styles]
        Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, \
        Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, \
        MarginR, MarginV, Encoding
        Style: Default,Arial,16,&Hffffff,&Hffffff,&H0,&H0,0,0,0,0,100,100,0,0,1,1,0,2,10,10,10,1

        [Events]
        Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text

        """

    init(codec name: String) throws {
        guard let codec = avcodec_find_encoder_by_name(name) else {
            throw FFmpegError(operation: "subtitles", message: "this FFmpeg has no \(name) encoder")
        }
        guard let context = avcodec_alloc_context3(codec) else {
            throw FFmpegError(operation: "subtitles", message: "out of memory")
        }
        let bytes = Array(Self.header.utf8)
        guard let header = av_mallocz(bytes.count + 1)?.assumingMemoryBound(to: UInt8.self) else {
            var owned: UnsafeMutablePointer<AVCodecContext>? = context
            avcodec_free_context(&owned)
            throw FFmpegError(operation: "subtitles", message: "out of memory")
        }
        header.update(from: bytes, count: bytes.count)
        context.pointee.subtitle_header = header
        context.pointee.subtitle_header_size = Int32(bytes.count)
        context.pointee.time_base = AVRational(num: 1, den: 1000)
        let opened = avcodec_open2(context, codec, nil)
        guard opened >= 0 else {
            var owned: UnsafeMutablePointer<AVCodecContext>? = context
            avcodec_free_context(&owned)
            throw FFmpegError(code: opened, operation: "open the \(name) encoder")
        }
        self.context = context
    }

    deinit {
        var owned: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&owned)
    }

    /// The packet payload of one cue: lines joined by the encoder's own line break.
    func encode(_ text: String) throws -> [UInt8] {
        // ASS marks a line break `\N` and an override block with braces: the text's own braces
        // and backslashes must not read as either.
        let escaped = text.replacingOccurrences(of: "\\", with: "\u{29F5}").replacingOccurrences(of: "{", with: "(")
            .replacingOccurrences(of: "}", with: ")").replacingOccurrences(of: "\n", with: "\\N")
        var subtitle = AVSubtitle()
        guard
            let rects = av_mallocz(MemoryLayout<UnsafeMutablePointer<AVSubtitleRect>?>.size)?
                .assumingMemoryBound(to: UnsafeMutablePointer<AVSubtitleRect>?.self),
            let rect = av_mallocz(MemoryLayout<AVSubtitleRect>.size)?.assumingMemoryBound(to: AVSubtitleRect.self)
        else { throw FFmpegError(operation: "subtitles", message: "out of memory") }
        rect.pointee.type = SUBTITLE_ASS
        rect.pointee.ass = av_strdup("0,0,Default,,0,0,0,,\(escaped)")
        rects[0] = rect
        subtitle.rects = rects
        subtitle.num_rects = 1
        defer { avsubtitle_free(&subtitle) }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024 + text.utf8.count * 8)
        let size = try FFmpegError.check(
            avcodec_encode_subtitle(context, &buffer, Int32(buffer.count), &subtitle), "encode a subtitle")
        return Array(buffer[..<Int(size)])
    }
}
