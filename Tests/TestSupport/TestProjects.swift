import Foundation

/// Projects several suites render, written with their media into a test's folder.
public enum TestProjects {
    /// 25 s at 64x36: three audio blocks. Two sounding sources, volume ramps across the block
    /// seams at 10.0053 s and 20.0107 s, and an item starting in the middle of the first block.
    /// Returns the project file.
    public static func soundAcrossBlocks(in dir: URL, audioCodec: String) throws -> URL {
        let media: [(String, String?, String?)] = [
            ("tone.wav", nil, "sine=frequency=440:sample_rate=48000:duration=30"),
            ("chord.wav", nil, "aevalsrc=0.3*sin(2*PI*262*t)+0.2*sin(2*PI*330*t)+0.1*sin(2*PI*392*t):s=48000:d=30"),
            ("pic.mp4", "testsrc2=size=64x36:rate=30:duration=26", nil),
        ]
        for (name, video, audio) in media
        where !FileManager.default.fileExists(atPath: dir.appendingPathComponent(name).path) {
            try TestMedia.make(name, in: dir, video: video, audio: audio)
        }
        let file = dir.appendingPathComponent("sound-\(audioCodec).json")
        try Data(
            """
            {
              "output": {"width": 64, "height": 36, "fps": "30", "audio": {"sampleRate": 48000, "channels": 2}},
              "export": {"container": "mov", "video": {"codec": "h264", "lossless": true},
                "audio": {"codec": "\(audioCodec)", "bitrate": 192000}},
              "assets": {"tone": {"path": "tone.wav"}, "chord": {"path": "chord.wav"}, "pic": {"path": "pic.mp4"}},
              "tracks": [
                {"kind": "video", "items": [{"asset": "pic", "at": "0", "duration": "25"}]},
                {"kind": "audio", "items": [
                  {"asset": "tone", "at": "0", "duration": "25",
                   "volume": {"keys": [["0", 0.2], ["9", 0.9], ["12", 0.3], ["19.5", 1], ["21", 0.4]]}}]},
                {"kind": "audio", "items": [
                  {"asset": "chord", "at": "4.3", "duration": "20", "source": {"start": "1.7"},
                   "volume": {"keys": [["0", 1], ["15", 0.5], ["17", 1]]}}]}
              ]
            }
            """.utf8
        ).write(to: file)
        return file
    }
}
