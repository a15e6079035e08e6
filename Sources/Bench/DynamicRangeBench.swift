import FarmCore
import FarmRender
import Foundation

/// The compositor on one core with the project's output on each canvas: SDR (the baseline),
/// PQ and HLG, in the same invocation. What differs is the conversions its sources need (HDR
/// tone-mapped to SDR, SDR lifted into HDR, PQ and HLG into each other) and the 10-bit blends.
enum DynamicRangeBench {
    static func run(_ loaded: LoadedProject, frames requested: Int64) throws {
        let frames = min(requested, loaded.project.frameCount)
        let clock = ContinuousClock()

        func composite(_ range: DynamicRange) throws -> Duration {
            var project = loaded
            project.project.output.dynamicRange = range
            let compositor = Compositor(loaded: project, decoderThreads: 1)
            return try clock.measure { for n in 0..<frames { try compositor.render(frame: n) } }
        }

        let output = loaded.project.output
        print("dynamic-range benchmark: \(frames) frames at \(output.width)x\(output.height), one thread")
        // Warm up once, then measure each canvas twice and keep the best.
        _ = try composite(.sdr)
        let baseline = milliseconds(min(try composite(.sdr), try composite(.sdr))) / Double(frames)
        print(String(format: "  sdr canvas (baseline): %7.2f ms/frame", baseline))
        for range in [DynamicRange.pq, .hlg] {
            let cost = milliseconds(min(try composite(range), try composite(range))) / Double(frames)
            print(
                String(
                    format: "  %@ canvas:            %7.2f ms/frame (%.2fx the sdr canvas)", range.rawValue, cost,
                    cost / baseline))
        }
    }
}
