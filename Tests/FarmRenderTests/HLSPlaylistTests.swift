import FarmCore
import FarmMedia
import FarmRender
import Foundation
import Testing

/// The master playlist's text and the codec names it carries, without a render.
@Suite struct HLSPlaylistTests {
    @Test func codecNamesAreReadFromTheConfigurationRecords() {
        // avcC of High profile, no constraint flags, level 3.0; and an SPS after a start code.
        #expect(DemuxedStream.avcString([0x01, 0x64, 0x00, 0x1e, 0xff]) == "avc1.64001e")
        #expect(DemuxedStream.avcString([0, 0, 0, 1, 0x67, 0x4d, 0x40, 0x28, 0xab]) == "avc1.4d4028")
        // hvcC of Main, tier Main, level 3.1 (93), compatibility 0x60000000, progressive and frame-only.
        let hvcC: [UInt8] = [0x01, 0x01, 0x60, 0x00, 0x00, 0x00, 0x90, 0x00, 0x00, 0x00, 0x00, 0x00, 0x5d]
        #expect(DemuxedStream.hevcString(hvcC) == "hvc1.1.6.L93.90")
        // av1C: profile 0, level 8 (4.0), tier Main, 8-bit.
        #expect(DemuxedStream.av1String([0x81, 0x08, 0x0c, 0x00]) == "av01.0.08M.08")
        #expect(DemuxedStream.av1String([0x81, 0x08, 0x4c, 0x00]) == "av01.0.08M.10")
    }

    @Test func theMasterListsEachVariantWithItsSoundAfterTheGroup() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // Two segments of 6 and 2 s, 750 and 500 kB: 1,000,000 and 2,000,000 bits a second.
        try Data(count: 750_000).write(to: folder.appendingPathComponent("00001.m4s"))
        try Data(count: 500_000).write(to: folder.appendingPathComponent("00002.m4s"))
        try Data("#EXTM3U\n#EXTINF:6.000000,\n00001.m4s\n#EXTINF:2.000000,\n00002.m4s\n#EXT-X-ENDLIST\n".utf8)
            .write(to: folder.appendingPathComponent("index.m3u8"))
        let rates = try HLSSegmentRates(folder.appendingPathComponent("index.m3u8"))
        #expect(rates.peak == 2_000_000 && rates.average == 1_250_000)
        let sound = HLSMasterPlaylist.Sound(
            uri: "my show/audio/index.m3u8", rates: rates, codec: "mp4a.40.2", channels: 6)
        let variant = HLSMasterPlaylist.Variant(
            uri: "my show/720p/index.m3u8", rates: rates, codec: "avc1.64001f", width: 1280, height: 720,
            fps: Rational(30000, 1001))
        let expected = [
            "#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-INDEPENDENT-SEGMENTS",
            #"#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="audio",NAME="audio",DEFAULT=YES,AUTOSELECT=YES,CHANNELS="6","#
                + #"URI="my%20show/audio/index.m3u8""#,
            #"#EXT-X-STREAM-INF:BANDWIDTH=4000000,AVERAGE-BANDWIDTH=2500000,CODECS="avc1.64001f,mp4a.40.2","#
                + #"RESOLUTION=1280x720,FRAME-RATE=29.970,AUDIO="audio""#,
            "my%20show/720p/index.m3u8", "",
        ]
        #expect(HLSMasterPlaylist(variants: [variant], sound: sound).text == expected.joined(separator: "\n"))

    }

    @Test func segmentsAreTheWholeGOPsNearestSixSeconds() {
        #expect(HLSPackage.segmentFrames(fps: Rational(30), alignment: 60) == 180)
        #expect(HLSPackage.segmentFrames(fps: Rational(30000, 1001), alignment: 60) == 180)
        #expect(HLSPackage.segmentFrames(fps: Rational(25), alignment: 100) == 200)
        #expect(HLSPackage.segmentFrames(fps: Rational(25), alignment: 1) == 150)
        #expect(HLSPackage.segmentFrames(fps: Rational(24), alignment: 240) == 240)
    }
}
