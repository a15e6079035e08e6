import FarmCore
import Foundation
import Testing

/// What `farm validate` says an asset undergoes depends on the canvas as well as the asset.
@Suite struct MediaConversionNoteTests {
    static func video(transfer: String?, bits: Int) -> MediaInfo {
        var info = MediaInfo(
            kind: .video, duration: Rational(2), width: 64, height: 64, rotation: 0, hasAudio: false, hasAlpha: false,
            frameRate: Rational(30))
        info.transfer = transfer
        info.bitDepth = bits
        return info
    }

    static func output(_ range: DynamicRange) throws -> OutputSettings {
        let json = """
            {"output": {"dynamicRange": "\(range.rawValue)"}, "export": {"video": {"codec": "hevc"}},
             "assets": {"a": {"path": "a.mp4"}},
             "tracks": [{"kind": "video", "items": [{"asset": "a", "at": "0", "duration": "1"}]}]}
            """
        return try ProjectParser(mediaRoot: URL(fileURLWithPath: "/media")).parse(Array(json.utf8), file: "p.json")
            .output
    }

    @Test func notesFollowTheSourceAndTheCanvas() throws {
        let hlg = Self.video(transfer: "arib-std-b67", bits: 10)
        let sdr = Self.video(transfer: "bt709", bits: 8)
        #expect(
            MediaConversions.notes(hlg, output: try Self.output(.sdr)) == [
                "HLG HDR pictures are tone-mapped to SDR BT.709 (docs/media.md)",
                "10-bit pictures are composited in 8 bits",
            ])
        #expect(MediaConversions.notes(hlg, output: try Self.output(.hlg)) == [])
        #expect(
            MediaConversions.notes(hlg, output: try Self.output(.pq)) == [
                "HLG pictures are converted to PQ (HDR10) (docs/media.md)"
            ])
        #expect(
            MediaConversions.notes(sdr, output: try Self.output(.hlg)) == [
                "SDR pictures are placed in HLG BT.2020 with their white at 203 nits (docs/media.md)"
            ])
        #expect(MediaConversions.notes(sdr, output: try Self.output(.sdr)) == [])
        #expect(
            MediaConversions.notes(Self.video(transfer: "smpte2084", bits: 12), output: try Self.output(.pq)) == [
                "12-bit pictures are composited in 10 bits"
            ])
    }
}
