import Foundation

/// What ffmpeg's `ebur128` filter (with `peak=true`) reads of a file's first audio stream: the
/// oracle for the farm's loudness figures. Its summary prints one decimal.
public struct Ebur128Reading: Sendable, CustomStringConvertible {
    public var integrated: Double
    public var range: Double
    public var truePeak: Double

    public var description: String { "I \(integrated) LUFS, LRA \(range) LU, TP \(truePeak) dBTP" }

    public static func of(_ file: URL) throws -> Ebur128Reading {
        let result = try run(
            "ffmpeg",
            [
                "-hide_banner", "-nostdin", "-nostats", "-i", file.path, "-map", "0:a:0", "-af", "ebur128=peak=true",
                "-f", "null", "-",
            ])
        guard result.status == 0, let summary = result.stderr.range(of: "Summary:") else {
            throw TestError.failed("ffmpeg ebur128 on \(file.lastPathComponent): \(result.stderr.suffix(500))")
        }
        let text = result.stderr[summary.upperBound...]
        func figure(_ label: String) throws -> Double {
            guard
                let line = text.split(separator: "\n").first(where: {
                    $0.trimmingCharacters(in: .whitespaces)
                        .hasPrefix(label)
                }),
                let value = line.split(separator: " ").dropFirst().first(where: { Double($0) != nil || $0 == "-inf" })
            else { throw TestError.failed("no \(label) in ebur128's summary: \(text)") }
            return value == "-inf" ? -.infinity : Double(value)!
        }
        return Ebur128Reading(integrated: try figure("I:"), range: try figure("LRA:"), truePeak: try figure("Peak:"))
    }
}

extension TestMedia {
    /// Speech-like sound: band-limited noise in syllables (about 4 a second) and pauses.
    public static func speech(_ name: String, in directory: URL, seconds: Int, seed: Int = 0) throws -> URL {
        try make(
            name, in: directory,
            audio: "aevalsrc='0.5*(random(\(seed))*2-1)*pow(sin(2*PI*2*t),2)*gt(sin(2*PI*0.23*t+\(seed)),-0.4)'"
                + ":s=48000:d=\(seconds),highpass=f=150,lowpass=f=3800,aformat=channel_layouts=stereo")
    }

    /// Music-like sound: a held chord and a kick drum every half second whose attack peaks near
    /// full scale, so a gain up to a loudness target needs the limiter.
    public static func music(_ name: String, in directory: URL, seconds: Int) throws -> URL {
        try make(
            name, in: directory,
            audio: "aevalsrc='0.06*sin(2*PI*220*t)+0.05*sin(2*PI*277.2*t)+0.04*sin(2*PI*329.6*t)"
                + "+0.85*exp(-30*mod(t,0.5))*sin(2*PI*70*mod(t,0.5))|0.06*sin(2*PI*221*t)+0.05*sin(2*PI*330*t)"
                + "+0.8*exp(-30*mod(t,0.5))*sin(2*PI*70*mod(t,0.5))':s=48000:d=\(seconds)")
    }
}

extension TestProjects {
    /// `periods` of programme, each `period` seconds (a multiple of 3): speech quiet and loud,
    /// music under it and alone, a loud music stretch whose kick drum a gain to −23 LUFS drives
    /// over the ceiling; pictures 64x36.
    public static func loudnessProgramme(
        in dir: URL, periods: Int, period: Int = 60, target: String = "\"ebu-r128\"", container: String = "mp4",
        codec: String = "aac"
    ) throws -> URL {
        precondition(period % 3 == 0 && period >= 6, "a period is thirds of whole seconds")
        let seconds = periods * period
        // Speech for its first two thirds, music for its last two, at full or half level for its last third.
        let third = period / 3
        if !FileManager.default.fileExists(atPath: dir.appendingPathComponent("speech.wav").path) {
            _ = try TestMedia.speech("speech.wav", in: dir, seconds: seconds)
            _ = try TestMedia.music("music.wav", in: dir, seconds: seconds)
            try TestMedia.make(
                "pic.mp4", in: dir, video: "testsrc2=size=64x36:rate=25:duration=\(seconds)",
                codec: ["-c:v", "libx264", "-preset", "ultrafast", "-g", "25"])
        }
        // Per period: speech at two levels, music under speech, then music alone.
        var speech: [String] = []
        var music: [String] = []
        for index in 0..<periods {
            let at = index * period
            let level = index % 2 == 0 ? 0.12 : 0.4
            speech.append(
                "{\"asset\": \"speech\", \"at\": \"\(at)\", \"duration\": \"\(2 * third)\", "
                    + "\"source\": {\"start\": \"\(at)\"}, \"volume\": \(level)}")
            music.append(
                "{\"asset\": \"music\", \"at\": \"\(at + third)\", \"duration\": \"\(2 * third)\", "
                    + "\"source\": {\"start\": \"\(at)\"}, "
                    + "\"volume\": {\"keys\": [[\"0\", 0.15], [\"\(third - 1)\", 0.15], "
                    + "[\"\(third)\", \(index % 3 == 0 ? 1 : 0.5)]]}}"
            )
        }
        let file = dir.appendingPathComponent("loudness.json")
        try Data(
            """
            {
              "output": {"width": 64, "height": 36, "fps": "25"},
              "export": {"container": "\(container)", "video": {"codec": "h264", "preset": "ultrafast"},
                "audio": {"codec": "\(codec)", "loudness": \(target)}},
              "assets": {"speech": {"path": "speech.wav"}, "music": {"path": "music.wav"}, "pic": {"path": "pic.mp4"}},
              "tracks": [
                {"kind": "video", "items": [{"asset": "pic", "at": "0", "duration": "\(seconds)"}]},
                {"kind": "audio", "items": [\(speech.joined(separator: ", "))]},
                {"kind": "audio", "items": [\(music.joined(separator: ", "))]}
              ]
            }
            """.utf8
        ).write(to: file)
        return file
    }
}
