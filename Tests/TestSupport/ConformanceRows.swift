import Foundation

/// One kind of source users bring, made at test time by ffmpeg's lavfi sources, and how the
/// farm's render of it is checked (docs/media.md has the table).
public struct ConformanceRow: Sendable, CustomStringConvertible {
    public enum Picture: Sendable {
        /// Every frame equals ffmpeg's, byte for byte.
        case exact
        /// Every frame is ffmpeg's picture within `psnr` dB, and nearer to it than to the
        /// pictures before and after (a conversion's rounding differs, the frame may not).
        case close(psnr: Double)
        /// A sound-only source.
        case none
    }

    public let name: String
    public let file: String
    /// ffmpeg invocations, run in order in the test folder; the last writes `file`, unless
    /// `script` does.
    public let make: [[String]]
    public var canvas: (width: Int, height: Int)
    /// A Python program run after `make` in the test folder by Debian's Python, with its
    /// Pillow (`python3-pil`, which ops/setup.sh installs): for files FFmpeg cannot write.
    public var script: String?
    public var fps = "30"
    public var start = "1"
    public var duration = "1"
    public var picture = Picture.exact
    /// The still's kind: every frame is the one picture.
    public var still = false
    /// Options of the oracle's `scale` beyond size and flags: by default an untagged source is
    /// BT.709, as the farm documents; a tagged one keeps its tag (`in_color_matrix=auto`).
    public var scaleOptions = ":in_color_matrix=bt709:out_color_matrix=bt709:out_range=tv"
    static let taggedSource = ":out_color_matrix=bt709:out_range=tv"
    public var fit = "stretch"
    /// How far the render's sound may sit from ffmpeg's, in samples, and by how much a sample
    /// may then differ: 0 and 2 where the farm is exact; wider where it is not yet
    /// (docs/media.md lists them).
    public var soundOffset = 0
    public var soundLevel = 2
    /// False where the sound's placement is a known open defect (docs/media.md).
    public var checksSound = true
    /// The oracle's whole graph, in place of one `scale` (HDR's tone mapping).
    public var oracleGraph: String?

    /// ffmpeg's HDR to SDR graph: linear light at 100 nits, BT.709 primaries, Hable with a
    /// 1000-nit peak, clipped to the gamut (`format=gbrp16le`), BT.709 out.
    static let toneMapping =
        "zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,tonemap=tonemap=hable:desat=0:peak=10,"
        + "format=gbrp16le,zscale=t=bt709:m=bt709:r=tv,format=yuv420p"

    public var description: String { name }

    static let video = "testsrc2=size=320x240:rate=30:duration=3"
    static let tone = "sine=frequency=440:duration=3:sample_rate=48000"

    /// A row made by one ffmpeg run from `inputs` with `codecs`.
    static func row(
        _ name: String, _ file: String, inputs: [String], codecs: [String], canvas: (Int, Int) = (320, 240),
        configure: (inout ConformanceRow) -> Void = { _ in }
    ) -> ConformanceRow {
        var row = ConformanceRow(name: name, file: file, make: [inputs + codecs + [file]], canvas: canvas)
        configure(&row)
        return row
    }

    /// A phone's video: encoded upright, then given a display matrix by stream copy (how
    /// FFmpeg 5.1 writes one: its "rotate" tag on an encode is dropped).
    static func turned(
        _ name: String, _ file: String, codecs: [String], configure: (inout ConformanceRow) -> Void = { _ in }
    ) -> ConformanceRow {
        let upright = "upright-" + file
        var row = ConformanceRow(
            name: name, file: file,
            make: [
                lavfi(video, tone) + codecs + [upright],
                ["-i", upright, "-c", "copy", "-metadata:s:v:0", "rotate=90", file],
            ], canvas: (240, 320))
        configure(&row)
        return row
    }

    static func lavfi(_ sources: String...) -> [String] { sources.flatMap { ["-f", "lavfi", "-i", $0] } }

    public static let all: [ConformanceRow] = [
        row(
            "H.264 MP4 + AAC", "h264.mp4", inputs: lavfi(video, tone),
            codecs: ["-c:v", "libx264", "-g", "30", "-pix_fmt", "yuv420p", "-c:a", "aac"]),
        row(
            "OBS MPEG-TS: H.264, 1 s GOP + AAC", "obs.ts", inputs: lavfi(video, tone),
            codecs: ["-c:v", "libx264", "-preset", "veryfast", "-g", "30", "-pix_fmt", "yuv420p", "-c:a", "aac"]),
        row(
            "MPEG-TS: H.264 at x264's default keyint (250)", "long-gop.ts", inputs: lavfi(video, tone),
            codecs: ["-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-c:a", "aac"]),
        row(
            "MPEG-TS: MPEG-2 with B-frames + MP2", "mpeg2.ts",
            inputs: lavfi("testsrc2=size=320x240:rate=25:duration=3", tone),
            codecs: ["-c:v", "mpeg2video", "-g", "12", "-bf", "2", "-q:v", "3", "-c:a", "mp2"]
        ) { $0.fps = "25" },
        row(
            "AVCHD .mts (M2TS): H.264 + AC-3", "avchd.mts", inputs: lavfi(video, tone),
            codecs: [
                "-c:v", "libx264", "-g", "15", "-bf", "2", "-pix_fmt", "yuv420p", "-c:a", "ac3", "-ac", "2", "-f",
                "mpegts", "-mpegts_m2ts_mode", "1",
            ]),
        row(
            "Broadcast MPEG-TS: interlaced MPEG-2 576i", "broadcast.ts",
            inputs: lavfi("testsrc2=size=720x576:rate=25:duration=3", tone),
            codecs: ["-c:v", "mpeg2video", "-flags", "+ilme+ildct", "-top", "1", "-g", "12", "-c:a", "mp2"],
            canvas: (720, 576)
        ) { $0.fps = "25" },
        row(
            "MPEG-2 program stream .mpg + MP2", "program.mpg",
            inputs: lavfi("testsrc2=size=320x240:rate=25:duration=3", tone),
            codecs: ["-c:v", "mpeg2video", "-g", "12", "-bf", "2", "-c:a", "mp2", "-f", "mpeg"]
        ) { $0.fps = "25" },
        row(
            "DVD .vob: MPEG-2 + AC-3", "dvd.vob",
            inputs: lavfi("testsrc2=size=720x480:rate=30000/1001:duration=3", tone),
            codecs: ["-c:v", "mpeg2video", "-g", "15", "-bf", "2", "-c:a", "ac3", "-f", "vob"], canvas: (720, 480)
        ) {
            $0.fps = "30000/1001"
            $0.checksSound = false
        },
        row(
            "OBS .mkv: H.264 + AAC", "obs.mkv", inputs: lavfi(video, tone),
            codecs: ["-c:v", "libx264", "-g", "60", "-pix_fmt", "yuv420p", "-c:a", "aac"]),
        row(
            "DSLR .mov: H.264 + PCM", "dslr.mov", inputs: lavfi(video, tone),
            codecs: ["-c:v", "libx264", "-g", "15", "-pix_fmt", "yuv420p", "-c:a", "pcm_s16le"]),
        row(
            "Camera .mov: H.264 4:2:2 10-bit + 24-bit PCM", "camera10.mov", inputs: lavfi(video, tone),
            codecs: ["-c:v", "libx264", "-pix_fmt", "yuv422p10le", "-g", "15", "-c:a", "pcm_s24le"]
        ) {
            $0.picture = .close(psnr: 40)
        },
        row(
            "Screen recording .mp4, sound 0.7 s late", "screen.mp4",
            inputs: ["-f", "lavfi", "-i", video, "-itsoffset", "0.7", "-f", "lavfi", "-i", tone],
            codecs: ["-c:v", "libx264", "-g", "30", "-pix_fmt", "yuv420p", "-c:a", "aac"]
        ) { $0.start = "0.3" },
        row(
            "Capture .mkv, picture 0.4 s late", "late-video.mkv",
            inputs: ["-itsoffset", "0.4", "-f", "lavfi", "-i", video, "-f", "lavfi", "-i", tone],
            codecs: ["-c:v", "libx264", "-g", "30", "-pix_fmt", "yuv420p", "-c:a", "pcm_s16le"]
        ) { $0.start = "0.2" },
        ConformanceRow(
            name: "MP4 with an edit list (cut mid-GOP by stream copy)", file: "edit-list.mp4",
            make: [
                lavfi(video, tone) + [
                    "-c:v", "libx264", "-g", "30", "-pix_fmt", "yuv420p", "-c:a", "aac", "whole.mp4",
                ],
                ["-ss", "0.5", "-i", "whole.mp4", "-c", "copy", "edit-list.mp4"],
            ], canvas: (320, 240), start: "0.5"),
        row(
            "Phone VFR .mp4 (irregular frame times)", "vfr.mp4", inputs: lavfi(video, tone),
            codecs: [
                "-vf", "settb=1/1000,setpts='floor(N*100/3+if(eq(mod(N,4),1),9,0))'", "-fps_mode", "passthrough",
                "-video_track_timescale", "1000", "-c:v", "libx264", "-g", "30", "-pix_fmt", "yuv420p", "-c:a", "aac",
            ]),
        turned(
            "Phone .mov turned 90° (display matrix)", "rotated.mov",
            codecs: ["-c:v", "libx264", "-g", "30", "-pix_fmt", "yuv420p", "-c:a", "aac"]),
        // As Android cameras write: full range, BT.601, drawn smaller than it is stored.
        turned(
            "Android .mp4 turned 90°, full range BT.601, scaled", "android-rotated.mp4",
            codecs: [
                "-c:v", "libx264", "-g", "30", "-pix_fmt", "yuvj420p", "-color_range", "pc", "-colorspace",
                "smpte170m", "-c:a", "aac",
            ]
        ) {
            $0.canvas = (120, 160)
            $0.scaleOptions = taggedSource
        },
        turned(
            "iPhone HEVC 10-bit HLG, turned 90°, variable rate", "iphone-hlg.mov",
            codecs: [
                "-vf", "settb=1/600,setpts='floor(N*20+if(eq(mod(N,5),2),7,0))'", "-fps_mode", "passthrough",
                "-video_track_timescale", "600", "-c:v", "libx265", "-x265-params", "log-level=error",
                "-pix_fmt", "yuv420p10le", "-color_primaries", "bt2020", "-color_trc", "arib-std-b67",
                "-colorspace", "bt2020nc", "-color_range", "tv", "-tag:v", "hvc1", "-c:a", "aac",
            ]
        ) {
            $0.picture = .close(psnr: 28)
            $0.oracleGraph = toneMapping
        },
        row(
            "HDR10: HEVC Main10 PQ", "hdr10.mkv", inputs: lavfi(video, tone),
            codecs: [
                "-c:v", "libx265", "-x265-params", "log-level=error", "-pix_fmt", "yuv420p10le", "-color_primaries",
                "bt2020", "-color_trc", "smpte2084", "-colorspace", "bt2020nc", "-color_range", "tv", "-c:a", "aac",
            ]
        ) {
            $0.picture = .close(psnr: 28)
            $0.oracleGraph = toneMapping
        },
        // Mid-level colours, as a graded master holds: most of testsrc2's saturated ones lie
        // outside BT.709 whatever the primaries, and clip alike.
        row(
            "HDR master in P3-D65 (an IMF's): 16-bit RGB FFV1, PQ", "p3-master.mkv",
            inputs: lavfi(video + ",lutrgb=r=val*0.4+90:g=val*0.4+90:b=val*0.4+90,format=rgb48le"),
            codecs: ["-c:v", "ffv1", "-color_primaries", "smpte432", "-color_trc", "smpte2084", "-colorspace", "rgb"]
        ) {
            // Read as BT.2020 (before the farm took a file's own primaries): 30 dB.
            $0.picture = .close(psnr: 34)
            $0.oracleGraph = toneMapping
        },
        row(
            "DV PAL 4:3, anamorphic (SAR 16:15), BT.601", "pal43.dv",
            inputs: lavfi("testsrc2=size=720x576:rate=25:duration=3"),
            codecs: ["-vf", "setsar=16/15", "-c:v", "dvvideo", "-pix_fmt", "yuv420p"], canvas: (768, 576)
        ) {
            $0.fps = "25"
            $0.fit = "contain"
            $0.scaleOptions = ":in_color_matrix=bt601:out_color_matrix=bt709:out_range=tv"
        },
        row(
            "DV PAL 16:9, anamorphic (SAR 64:45) in AVI + PCM", "pal169.avi",
            inputs: lavfi("testsrc2=size=720x576:rate=25:duration=3", tone),
            codecs: ["-vf", "setsar=64/45", "-c:v", "dvvideo", "-pix_fmt", "yuv420p", "-c:a", "pcm_s16le"],
            canvas: (1024, 576)
        ) {
            $0.fps = "25"
            $0.fit = "contain"
            $0.scaleOptions = ":in_color_matrix=bt601:out_color_matrix=bt709:out_range=tv"
        },
        row(
            "HDV .m2t: MPEG-2 1440x1080 (SAR 4:3) + MP2", "hdv.m2t",
            inputs: lavfi("testsrc2=size=1440x1080:rate=25:duration=2", tone),
            codecs: [
                "-vf", "setsar=4/3", "-c:v", "mpeg2video", "-g", "12", "-q:v", "4", "-c:a", "mp2", "-f", "mpegts",
            ],
            canvas: (960, 540)
        ) {
            $0.fps = "25"
            $0.duration = "0.2"
            $0.fit = "contain"
        },
        row(
            "5.1 trailer .mp4: H.264 + AAC 5.1", "trailer51.mp4",
            inputs: lavfi(
                video,
                "aevalsrc=0.9*sin(2*PI*300*t)|0.9*sin(2*PI*500*t)|0.9*sin(2*PI*700*t)|0.5*sin(2*PI*60*t)"
                    + "|0.9*sin(2*PI*900*t)|0.9*sin(2*PI*1100*t):c=5.1:s=48000:d=3"
            ),
            codecs: ["-c:v", "libx264", "-g", "30", "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "384k"]),
        row(
            "5.1 WAV at full scale", "full51.wav",
            inputs: lavfi("aevalsrc=0.9|0.9|0.9|0.9|0.9|0.9:c=5.1:s=48000:d=3"), codecs: ["-c:a", "pcm_s16le"]
        ) {
            $0.picture = .none
        },
        row(
            "7.1 WAV", "surround71.wav",
            inputs: lavfi("aevalsrc=0.5*sin(2*PI*(200+100*ch)*t):c=7.1:s=48000:d=3"), codecs: ["-c:a", "pcm_s16le"]
        ) {
            $0.picture = .none
        },
        row(
            "Quad WAV", "quad.wav",
            inputs: lavfi("aevalsrc=0.8*sin(2*PI*(300+150*ch)*t):c=quad:s=48000:d=3"), codecs: ["-c:a", "pcm_s16le"]
        ) {
            $0.picture = .none
        },
        row(
            "Mono WAV at 44.1 kHz", "mono.wav", inputs: lavfi("sine=frequency=330:duration=3:sample_rate=44100"),
            codecs: ["-c:a", "pcm_s16le"]
        ) { $0.picture = .none },
        row(
            "DNxHR LB .mov + PCM", "dnxhr.mov", inputs: lavfi(video, tone),
            codecs: ["-c:v", "dnxhd", "-profile:v", "dnxhr_lb", "-pix_fmt", "yuv422p", "-c:a", "pcm_s16le"]
        ) {
            $0.picture = .close(psnr: 40)
        },
        row(
            "ProRes 4444 with alpha .mov", "prores4444.mov", inputs: lavfi(video),
            codecs: ["-c:v", "prores_ks", "-profile:v", "4444", "-pix_fmt", "yuva444p10le"]
        ) {
            $0.picture = .close(psnr: 40)
        },
        row(
            "VP9 WebM + Opus", "vp9.webm", inputs: lavfi(video, tone),
            codecs: ["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-g", "30", "-c:a", "libopus"]),
        // Opus's pre-skip at the very start: the first frame, short by it, where ffmpeg puts it.
        row(
            "VP9 WebM + Opus, from its start", "vp9-start.webm", inputs: lavfi(video, tone),
            codecs: ["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-g", "30", "-c:a", "libopus"]
        ) { $0.start = "0" },
        row(
            "AV1 WebM (SVT-AV1) + Opus", "av1.webm", inputs: lavfi(video, tone),
            codecs: ["-c:v", "libsvtav1", "-preset", "12", "-g", "30", "-c:a", "libopus"]),
        row(
            "MJPEG AVI + PCM", "mjpeg.avi", inputs: lavfi(video, tone),
            codecs: ["-c:v", "mjpeg", "-q:v", "3", "-c:a", "pcm_s16le"]
        ) {
            $0.picture = .close(psnr: 40)
            $0.scaleOptions = taggedSource
        },
        row(
            "Interlaced MPEG-2 in MKV", "interlaced.mkv", inputs: lavfi(video, tone),
            codecs: ["-c:v", "mpeg2video", "-flags", "+ilme+ildct", "-g", "15", "-c:a", "pcm_s16le"]),
        row("PNG still (RGB)", "still.png", inputs: lavfi("testsrc2=size=320x240"), codecs: ["-frames:v", "1"]) {
            $0.still = true
            $0.scaleOptions = taggedSource
        },
        row(
            "16-bit PNG still", "deep.png", inputs: lavfi("testsrc2=size=320x240"),
            codecs: ["-frames:v", "1", "-pix_fmt", "rgb48be"]
        ) {
            $0.still = true
            $0.scaleOptions = taggedSource
        },
        row("One-picture GIF logo", "logo.gif", inputs: lavfi("testsrc2=size=320x240"), codecs: ["-frames:v", "1"]) {
            $0.still = true
            $0.scaleOptions = taggedSource
        },
        row(
            "One-picture APNG", "logo.apng", inputs: lavfi("testsrc2=size=320x240"),
            codecs: ["-frames:v", "1", "-f", "apng"]
        ) {
            $0.still = true
            $0.scaleOptions = taggedSource
        },
        row("WebP still", "photo.webp", inputs: lavfi("testsrc2=size=320x240"), codecs: ["-frames:v", "1"]) {
            $0.still = true
            $0.scaleOptions = taggedSource
        },
        // FFmpeg's encoder writes no CMYK, so Pillow makes the JPEG from ffmpeg's picture: C, M
        // and Y from R, G and B, black darkening left to right, stored inverted with Adobe's
        // APP14 marker as Photoshop does.
        ConformanceRow(
            name: "CMYK JPEG still (Adobe, inverted)", file: "cmyk.jpg",
            make: [lavfi("testsrc2=size=320x240") + ["-frames:v", "1", "cmyk-source.png"]], canvas: (320, 240),
            script: """
                from PIL import Image, ImageChops
                rgb = Image.open("cmyk-source.png").convert("RGB")
                c, m, y = (ImageChops.invert(band) for band in rgb.split())
                k = Image.linear_gradient("L").rotate(90).resize(rgb.size).point(lambda v: v // 2)
                Image.merge("CMYK", (c, m, y, k)).save("cmyk.jpg", quality=95)
                made = Image.open("cmyk.jpg")
                assert made.mode == "CMYK" and "adobe" in made.info, made.info
                """, still: true, scaleOptions: taggedSource),
        row("Animated GIF", "animated.gif", inputs: lavfi("testsrc2=size=320x240:rate=10:duration=3"), codecs: []) {
            $0.fps = "10"
        },
    ]
}
