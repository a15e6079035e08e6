import FarmCore
import FarmRender
import Foundation

/// The compositor on one core with an output grade against the project as it is (the baseline),
/// in the same invocation: a CDL, the `.cube` LUT given, and both, on every frame's whole canvas.
enum GradeBench {
    static func run(_ loaded: LoadedProject, lut file: String, frames requested: Int64) throws {
        let frames = min(requested, loaded.project.frameCount)
        let clock = ContinuousClock()
        let path = URL(fileURLWithPath: file).standardizedFileURL.path
        let lut = try CubeLUT.parse(String(contentsOfFile: path, encoding: .utf8), file: path)
        let cdl = ColourDecision(
            slope: [1.1, 1, 0.9], offset: [0, 0.01, 0.02], power: [1, 1.1, 0.9], saturation: 0.8)

        func composite(_ grade: ColourGrade?) throws -> Duration {
            var project = loaded
            project.project.output.grade = grade
            project.luts[path] = lut
            let compositor = Compositor(loaded: project, decoderThreads: 1)
            return try clock.measure { for n in 0..<frames { try compositor.render(frame: n) } }
        }

        let output = loaded.project.output
        print(
            "grade benchmark: \(frames) frames at \(output.width)x\(output.height), one thread, "
                + "a \(lut.size)-point LUT")
        // Warm up once, then measure each twice and keep the best.
        _ = try composite(nil)
        let baseline = milliseconds(min(try composite(nil), try composite(nil))) / Double(frames)
        print(String(format: "  ungraded (baseline):  %7.2f ms/frame", baseline))
        let reference = LUTReference(path: path)
        for (name, grade) in [
            ("output CDL:         ", ColourGrade(cdl: cdl)), ("output LUT:         ", ColourGrade(lut: reference)),
            ("output CDL then LUT:", ColourGrade(cdl: cdl, lut: reference)),
        ] {
            let cost = milliseconds(min(try composite(grade), try composite(grade))) / Double(frames)
            print(String(format: "  %@ %7.2f ms/frame (+%.2f ms)", name, cost, cost - baseline))
        }
    }
}
