import FarmCore
import FarmMedia
import FarmRender
import FarmStore
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The result of running a program to completion.
public struct ProcessResult {
    public var status: Int32
    public var stdout: String
    public var stderr: String
}

public enum TestError: Error, CustomStringConvertible {
    case failed(String)
    public var description: String {
        switch self {
        case .failed(let message): return message
        }
    }
}

/// Runs `program` (a path, or a name looked up on PATH) with `arguments`, capturing its output;
/// kills it and fails after `timeout` seconds.
@discardableResult
public func run(_ program: String, _ arguments: [String], in directory: URL? = nil, timeout: Double = 600) throws
    -> ProcessResult
{
    try RunningProgram(program, arguments, in: directory).finish(timeout: timeout)
}

/// A program started and not yet waited for.
///
/// Through the farm's own `Subprocess`, not Foundation's `Process`: tmux leaves its server behind,
/// and `Process` would wait for that server to end too. Output goes to files, read at the end.
public final class RunningProgram {
    public let argv: [String]
    public let pid: pid_t
    private let out: URL
    private let err: URL

    public init(_ program: String, _ arguments: [String], in directory: URL? = nil) throws {
        argv = (program.hasPrefix("/") ? [program] : ["/usr/bin/env", program]) + arguments
        let capture = FileManager.default.temporaryDirectory.appendingPathComponent(
            "farm-test-run-\(UUID().uuidString)")
        out = capture.appendingPathExtension("out")
        err = capture.appendingPathExtension("err")
        pid = try Subprocess.spawn(argv, standardOutput: out, standardError: err, directory: directory)
    }

    /// What it has printed on standard output so far.
    public var outputSoFar: String { (try? String(contentsOf: out, encoding: .utf8)) ?? "" }

    /// What it has printed on standard error so far.
    public var errorSoFar: String { (try? String(contentsOf: err, encoding: .utf8)) ?? "" }

    /// Waits for the program to end by itself and returns what it did; kills it and fails after
    /// `timeout` seconds.
    public func finish(timeout: Double) throws -> ProcessResult {
        defer { for file in [out, err] { try? FileManager.default.removeItem(at: file) } }
        let read = { (file: URL) in (try? String(contentsOf: file, encoding: .utf8)) ?? "" }
        guard let status = Subprocess.wait(pid, timeout: timeout) else {
            kill(pid, SIGKILL)
            _ = Subprocess.wait(pid, timeout: nil)
            throw TestError.failed(
                "\(argv.joined(separator: " ")) did not finish within \(Int(timeout)) s\n\(read(out))\n\(read(err))")
        }
        return ProcessResult(status: status, stdout: read(out), stderr: read(err))
    }
}

/// Runs the `ffmpeg` program (an independent oracle; the product never runs it).
@discardableResult
public func ffmpeg(_ arguments: [String], in directory: URL? = nil) throws -> ProcessResult {
    let result = try run("ffmpeg", ["-hide_banner", "-nostdin", "-v", "error", "-y"] + arguments, in: directory)
    guard result.status == 0 else {
        throw TestError.failed("ffmpeg \(arguments.joined(separator: " ")) failed: \(result.stderr)")
    }
    return result
}

/// A fresh folder removed after `body`.
public func withTemporaryDirectory<T>(_ body: (URL) throws -> T) throws -> T {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("farm-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: url) }
    return try body(url)
}

/// Writes a shell script (`text`, from its `#!` line) to `url` and makes it executable.
public func writeExecutable(_ text: String, to url: URL) throws {
    try Data(text.utf8).write(to: url)
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
}

/// The size of the file at `url`, nil if there is none.
public func fileSize(_ url: URL) -> Int64? {
    (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.int64Value
}

/// Media made at test time from ffmpeg's lavfi sources.
public enum TestMedia {
    /// Encodes a lavfi video source (and optional lavfi audio) to `name` in `directory`.
    @discardableResult
    public static func make(
        _ name: String, in directory: URL, video: String? = nil, audio: String? = nil,
        codec: [String] = ["-c:v", "libx264", "-g", "15"],
        extra: [String] = []
    ) throws -> URL {
        var arguments: [String] = []
        if let video { arguments += ["-f", "lavfi", "-i", video] }
        if let audio { arguments += ["-f", "lavfi", "-i", audio] }
        if video != nil { arguments += codec + ["-pix_fmt", "yuv420p"] }
        if audio != nil {
            arguments += name.hasSuffix(".wav") ? [] : ["-c:a", name.hasSuffix(".mkv") ? "pcm_s16le" : "aac"]
        }
        arguments += extra + [name]
        try ffmpeg(arguments, in: directory)
        return directory.appendingPathComponent(name)
    }

    /// A grey source whose luma equals 3 × its frame number: the picture says which frame it is.
    @discardableResult
    public static func numbered(
        _ name: String, in directory: URL, frames: Int, size: String = "64x64", rate: String = "30"
    ) throws -> URL {
        try make(
            name, in: directory,
            video:
                "color=gray:size=\(size):rate=\(rate):duration=\(Double(frames) / (Double(rate) ?? 30)),"
                + "geq=lum='3*N':cb=128:cr=128",
            codec: ["-c:v", "ffv1"])
    }
}

/// Writes `json` as project.json in `directory`, loads and checks it.
public func loadProject(_ json: String, in directory: URL) throws -> LoadedProject {
    FFmpegLog.configure(verbose: false)
    let file = directory.appendingPathComponent("project.json")
    try Data(json.utf8).write(to: file)
    return try ProjectLoader().load(file: file.path)
}

/// Renders `frames` (default: all) of a loaded project to `name` in `directory`.
@discardableResult
public func render(
    _ loaded: LoadedProject, to name: String, in directory: URL, frames: Range<Int64>? = nil, audio: Bool = true
) throws -> URL {
    let url = directory.appendingPathComponent(name)
    var configuration = TimelineRenderer.Configuration()
    configuration.includeAudio = audio
    configuration.encoderThreads = 1
    try TimelineRenderer(loaded: loaded, configuration: configuration)
        .render(frames: frames ?? 0..<loaded.project.frameCount, to: url)
    return url
}

/// The MD5 of every decoded video frame, in order, per ffmpeg's framemd5 muxer.
public func frameHashes(_ file: URL, extra: [String] = []) throws -> [String] {
    let result = try ffmpeg(["-i", file.path] + extra + ["-map", "0:v", "-f", "framemd5", "-"])
    return result.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.map {
        String($0.split(separator: ",").last!.trimmingCharacters(in: .whitespaces))
    }
}

/// Decoded planar YUV 4:2:0 frames of `file`.
public func decodedYUV(_ file: URL, width: Int, height: Int) throws -> [[UInt8]] {
    let raw = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString + ".yuv")
    defer { try? FileManager.default.removeItem(at: raw) }
    try ffmpeg(["-i", file.path, "-map", "0:v", "-f", "rawvideo", "-pix_fmt", "yuv420p", raw.path])
    let data = [UInt8](try Data(contentsOf: raw))
    let size = width * height * 3 / 2
    return stride(from: 0, to: data.count, by: size).map { Array(data[$0..<min($0 + size, data.count)]) }
}

/// The (Y, U, V) of pixel (x, y) in a decoded YUV 4:2:0 frame.
public func pixel(_ frame: [UInt8], width: Int, height: Int, x: Int, y: Int) -> (Int, Int, Int) {
    let chroma = width / 2 * (height / 2)
    let luma = Int(frame[y * width + x])
    let u = Int(frame[width * height + y / 2 * (width / 2) + x / 2])
    let v = Int(frame[width * height + chroma + y / 2 * (width / 2) + x / 2])
    return (luma, u, v)
}

/// MD5 of every decoded audio sample.
public func audioHash(_ file: URL) throws -> String {
    try ffmpeg(["-i", file.path, "-map", "0:a", "-f", "md5", "-"]).stdout.trimmingCharacters(
        in: .whitespacesAndNewlines)
}

/// Every video packet's presentation time in seconds, exact, in increasing order.
public func videoPacketTimes(_ file: URL) throws -> [Rational] {
    let packets = try probe(
        file, ["-select_streams", "v", "-show_entries", "packet=pts", "-show_entries", "stream=time_base"])
    guard let timeBase = (packets["streams"] as? [[String: Any]])?.first?["time_base"] as? String,
        let entries = packets["packets"] as? [[String: Any]]
    else { throw TestError.failed("ffprobe printed no time base or packets for \(file.path)") }
    let parts = timeBase.split(separator: "/").compactMap { Int64($0) }
    let pts = entries.compactMap { $0["pts"] as? Int64 }.sorted()
    return pts.map { Rational($0 * parts[0], parts[1]) }
}

/// ffprobe's JSON for `entries` of `file`.
public func probe(_ file: URL, _ arguments: [String]) throws -> [String: Any] {
    let result = try run("ffprobe", ["-v", "error", "-of", "json"] + arguments + [file.path])
    guard result.status == 0,
        let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
    else {
        throw TestError.failed("ffprobe failed: \(result.stderr)")
    }
    return json
}

/// The directory holding the built `farm` executable (beside the test bundle).
public var productsDirectory: URL {
    URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
}

/// The built `farm` program's path.
public var farmProgram: String { productsDirectory.appendingPathComponent("farm").path }

/// Runs the built `farm` with `arguments` and returns what it did, whatever its exit status.
@discardableResult
public func runFarm(_ arguments: [String], in directory: URL? = nil) throws -> ProcessResult {
    try run(farmProgram, arguments, in: directory)
}

/// Project text `json` parsed (media root /media): the project, or every diagnostic as a
/// "path: message" line.
public func parseProjectText(_ json: String) -> (Project?, [String]) {
    do {
        return (
            try ProjectParser(mediaRoot: URL(fileURLWithPath: "/media")).parse(Array(json.utf8), file: "p.json"), []
        )
    } catch let error as ProjectError {
        return (nil, error.diagnostics.map(\.description))
    } catch {
        return (nil, ["unexpected \(error)"])
    }
}

/// Every diagnostic the parser reports for project text `json`.
public func parseDiagnostics(_ json: String) -> [String] { parseProjectText(json).1 }

/// SplitMix64: a small, fast generator that gives the same numbers everywhere, so a seeded
/// fuzz run replays exactly.
public struct SeededRandom {
    public var state: UInt64

    public init(state: UInt64) { self.state = state }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    public mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}
