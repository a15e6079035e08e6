import Foundation

/// The first channel's samples as ffmpeg decodes `file` (the encoder's priming trimmed), as
/// 32-bit floats.
public func firstChannelSamples(_ file: URL) throws -> [Float] {
    let raw = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString + ".f32")
    defer { try? FileManager.default.removeItem(at: raw) }
    try ffmpeg(["-i", file.path, "-map", "0:a", "-af", "pan=mono|c0=c0", "-f", "f32le", raw.path])
    let data = try Data(contentsOf: raw)
    return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
}

/// Samples per channel ffmpeg decodes from `file`, counted frame by frame.
public func decodedSampleCount(_ file: URL) throws -> Int {
    let frames = try run(
        "ffprobe",
        ["-v", "error", "-select_streams", "a", "-show_entries", "frame=nb_samples", "-of", "csv=p=0", file.path])
    return frames.stdout.split(separator: "\n").compactMap { Int($0) }.reduce(0, +)
}

/// CSS's cubic-bezier through (0, 0), (x1, y1), (x2, y2), (1, 1) at `x`, solved by Newton's
/// method: an oracle independent of the product's bisection.
public func cubicBezierReference(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, at x: Double) -> Double {
    func curve(_ p1: Double, _ p2: Double, _ s: Double) -> Double {
        3 * (1 - s) * (1 - s) * s * p1 + 3 * (1 - s) * s * s * p2 + s * s * s
    }
    func slope(_ p1: Double, _ p2: Double, _ s: Double) -> Double {
        3 * (1 - s) * (1 - s) * p1 + 6 * (1 - s) * s * (p2 - p1) + 3 * s * s * (1 - p2)
    }
    var s = x
    for _ in 0..<50 where slope(x1, x2, s) != 0 {
        s = min(1, max(0, s - (curve(x1, x2, s) - x) / slope(x1, x2, s)))
    }
    return curve(y1, y2, s)
}
