import FarmCore
import FarmMedia
import FarmRender
import Foundation

// farm-bench: times the compositor on one core against a decode-only baseline run in the same
// invocation. Usage: farm-bench PROJECT.json [FRAMES]
// (ops/bench.sh makes the media and also compares a whole render with the ffmpeg program.)

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: farm-bench PROJECT.json [FRAMES]\n".utf8))
    exit(64)
}
FFmpegLog.configure(verbose: false)
let loaded: LoadedProject
do {
    loaded = try ProjectLoader().load(file: arguments[1])
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(2)
}
let frames = min(Int64(arguments.count > 2 ? Int(arguments[2]) ?? 300 : 300), loaded.project.frameCount)
let clock = ContinuousClock()

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

/// Decoding alone: every video item's frames, as the compositor would ask for them.
func decodeOnly() throws -> Duration {
    var editor = loaded
    let canvas = loaded.project.output
    editor.project.tracks = editor.project.tracks.map { track in
        var copy = track
        // A 2x2 frame in the corner keeps decoding but makes scaling and blending negligible.
        copy.items = track.items.map { item in
            var small = item
            small.frame = .constant(
                Rect(x: 0, y: 0, width: 2.0 / Double(canvas.width), height: 2.0 / Double(canvas.height)))
            small.opacity = .constant(1)
            return small
        }
        return copy
    }
    let compositor = Compositor(loaded: editor, decoderThreads: 1)
    return try clock.measure { for n in 0..<frames { try compositor.render(frame: n) } }
}

func composite() throws -> Duration {
    let compositor = Compositor(loaded: loaded, decoderThreads: 1)
    return try clock.measure { for n in 0..<frames { try compositor.render(frame: n) } }
}

do {
    // Warm up file caches and code paths once, then measure each twice and keep the best.
    _ = try composite()
    let baseline = min(try decodeOnly(), try decodeOnly())
    let full = min(try composite(), try composite())
    let perFrameFull = milliseconds(full) / Double(frames)
    let perFrameDecode = milliseconds(baseline) / Double(frames)
    let output = loaded.project.output
    print("compositor benchmark: \(frames) frames at \(output.width)x\(output.height), one thread")
    print(String(format: "  decode only (baseline):   %7.2f ms/frame", perFrameDecode))
    print(String(format: "  decode + composite:       %7.2f ms/frame", perFrameFull))
    print(
        String(
            format: "  compositing cost:         %7.2f ms/frame (%.2fx the decode-only time)",
            perFrameFull - perFrameDecode, perFrameFull / perFrameDecode))
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(1)
}
