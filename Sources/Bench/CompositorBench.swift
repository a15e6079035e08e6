import FarmCore
import FarmRender
import Foundation

/// The compositor on one core against a decode-only baseline, in the same invocation.
enum CompositorBench {
    static func run(_ loaded: LoadedProject, frames requested: Int64) throws {
        let frames = min(requested, loaded.project.frameCount)
        let clock = ContinuousClock()

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
    }
}
