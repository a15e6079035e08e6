import FarmCore
import FarmRender
import Foundation
import TestSupport
import Testing

/// `output.dynamicRange`: a 10-bit BT.2020 canvas with the PQ or HLG transfer, encoded in 10
/// bits and tagged so, the same whether rendered directly or joined from chunks; HDR sources in
/// their own range pass through untouched, SDR ones are placed with their white at 203 nits.
@Suite struct HDROutputTests {
    /// A one-second 10-bit HEVC clip (64x64) tagged BT.2020 with `transfer`, as a phone writes.
    static func hdrClip(_ name: String, transfer: String, in dir: URL) throws -> URL {
        try ffmpeg(
            [
                "-f", "lavfi", "-i", "testsrc2=size=64x64:rate=30:duration=1", "-pix_fmt", "yuv420p10le", "-c:v",
                "libx265", "-x265-params", "log-level=error", "-preset", "ultrafast", "-color_primaries", "bt2020",
                "-color_trc", transfer, "-colorspace", "bt2020nc", "-color_range", "tv", name,
            ], in: dir)
        return dir.appendingPathComponent(name)
    }

    /// A project of one HDR clip in `range`, an SDR clip after it, and a title over both.
    static func project(range: String, codec: String, container: String, in dir: URL) throws -> LoadedProject {
        try hdrClip("hdr.mkv", transfer: range == "pq" ? "smpte2084" : "arib-std-b67", in: dir)
        try TestMedia.make("sdr.mp4", in: dir, video: "smptebars=size=64x64:rate=30:duration=1")
        return try loadProject(
            """
            {
              "output": {"width": 64, "height": 64, "fps": "30", "dynamicRange": "\(range)", "background": "#204080"},
              "export": {"container": "\(container)", "video": {"codec": "\(codec)", "gop": 10, "preset": "ultrafast"},
                         "audio": {"codec": "\(container == "mp4" ? "aac" : "pcm")"}},
              "assets": {"hdr": {"path": "hdr.mkv"}, "sdr": {"path": "sdr.mp4"}},
              "tracks": [
                {"kind": "video", "items": [{"asset": "hdr", "at": "0", "duration": "1"},
                                            {"asset": "sdr", "at": "1", "duration": "1"}]},
                {"kind": "video", "items": [{"title": {"text": "HDR", "size": 20}, "at": "0.5", "duration": "1"}]}
              ]
            }
            """, in: dir)
    }

    @Test(arguments: [
        ("pq", "hevc", "mp4"), ("hlg", "hevc", "mov"), ("hlg", "av1", "mkv"), ("pq", "av1", "mp4"),
        ("pq", "prores", "mov"), ("hlg", "prores", "mov"), ("pq", "ffv1", "mkv"),
    ])
    func hdrExportIsTenBitTaggedAndChunkedEqualsDirect(range: String, codec: String, container: String) throws {
        try withTemporaryDirectory { dir in
            let loaded = try Self.project(range: range, codec: codec, container: container, in: dir)
            let direct = try render(loaded, to: "direct.\(container)", in: dir)
            let joined = dir.appendingPathComponent("joined.\(container)")
            let work = dir.appendingPathComponent("work")
            try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
            try ChunkedRender(loaded: loaded, workDirectory: work).renderAll(size: .frames(10), to: joined)
            let transfer = range == "pq" ? "smpte2084" : "arib-std-b67"
            for file in [direct, joined] {
                let info = try probe(
                    file,
                    [
                        "-select_streams", "v", "-show_entries",
                        "stream=pix_fmt,profile,color_range,color_space,color_primaries,color_transfer",
                    ])
                let stream = try #require((info["streams"] as? [[String: Any]])?.first)
                let name = "\(codec) \(file.lastPathComponent)"
                #expect(stream["pix_fmt"] as? String == (codec == "prores" ? "yuv422p10le" : "yuv420p10le"), "\(name)")
                if codec == "hevc" { #expect(stream["profile"] as? String == "Main 10", "\(name): \(stream)") }
                #expect(stream["color_range"] as? String == "tv", "\(name): \(stream)")
                #expect(stream["color_space"] as? String == "bt2020nc", "\(name): \(stream)")
                #expect(stream["color_primaries"] as? String == "bt2020", "\(name): \(stream)")
                #expect(stream["color_transfer"] as? String == transfer, "\(name): \(stream)")
            }
            let hashes = try frameHashes(direct)
            #expect(hashes.count == 60)
            #expect(try frameHashes(joined) == hashes, "\(codec) in \(container): joined frames differ from direct")
        }
    }

    /// A PQ or HLG source on a canvas of its own range is ffmpeg's decode of it, bit for bit.
    @Test(arguments: ["pq", "hlg"]) func hdrSourceInItsOwnRangePassesThrough(range: String) throws {
        try withTemporaryDirectory { dir in
            let loaded = try Self.project(range: range, codec: "ffv1", container: "mkv", in: dir)
            let output = try render(loaded, to: "out.mkv", in: dir, frames: 0..<15)
            let source = try frameHashes(dir.appendingPathComponent("hdr.mkv"), extra: ["-frames:v", "15"])
            #expect(source.count == 15)
            #expect(try frameHashes(output) == source)
        }
    }

    /// An SDR source on an HDR canvas against ffmpeg's graph: libswscale to planar RGB and back
    /// (its bicubic chroma, as the farm's), `zscale` between them for the transfer and primaries
    /// with BT.2408's 203-nit white. PQ is the same to rounding (78.8 dB measured); HLG's luma
    /// matches (51.0 dB), its chroma less (35.3 dB): zimg's inverse OOTF treats saturated colours
    /// otherwise than BT.2100's luminance-based one the farm uses (docs/media.md).
    @Test(arguments: [("pq", "smpte2084", 70.0), ("hlg", "arib-std-b67", 48.0)])
    func sdrSourceOnAnHDRCanvasMatchesZscale(range: String, transfer: String, floor: Double) throws {
        try withTemporaryDirectory { dir in
            let loaded = try Self.project(range: range, codec: "ffv1", container: "mkv", in: dir)
            let output = try render(loaded, to: "out.mkv", in: dir, frames: 45..<60)
            let reference = dir.appendingPathComponent("reference.mkv")
            try ffmpeg([
                "-i", dir.appendingPathComponent("sdr.mp4").path, "-vf",
                "trim=start_frame=15,setpts=PTS-STARTPTS,"
                    + "scale=flags=bicubic+accurate_rnd+bitexact:in_color_matrix=bt709:in_range=tv,format=gbrp16le,"
                    + "zscale=tin=bt709:pin=bt709:t=\(transfer):p=bt2020:npl=203,format=gbrp16le,"
                    + "scale=flags=bicubic+accurate_rnd+bitexact:out_color_matrix=bt2020:out_range=tv,"
                    + "format=yuv420p10le",
                "-c:v", "ffv1", reference.path,
            ])
            let psnr = try lowestLumaPSNR(output, reference)
            #expect(psnr >= floor, "lowest luma PSNR against zscale: \(psnr) dB")
        }
    }
}
