import Foundation

/// `.cube` files written at test time, and the ffmpeg graphs that grade as the farm does.
public enum CubeFile {
    /// A strong, nonlinear look with every channel leaning on the others, reaching a little past
    /// 0 and 1 (so clamping counts): what interpolation between grid points gets wrong if it
    /// picks the wrong corners.
    public static func look(_ r: Double, _ g: Double, _ b: Double) -> (Double, Double, Double) {
        (
            0.85 * pow(min(max(r, 0), 4), 0.8) + 0.12 * b - 0.02,
            0.7 * (0.5 - 0.5 * cos(Double.pi * min(max(g, 0), 1))) + 0.25 * r * b + 0.03,
            1.05 * b * b + 0.1 * (1 - r) - 0.04 * g
        )
    }

    /// Writes a size³ LUT of `look` to `name` in `directory`; with `domainMax`, its grid spans
    /// 0 to those inputs (DOMAIN_MAX, after LUT_3D_SIZE, where lut3d reads it).
    @discardableResult
    public static func write(
        _ name: String, in directory: URL, size: Int, domainMax: [Double]? = nil,
        look: (Double, Double, Double) -> (Double, Double, Double) = look
    ) throws -> URL {
        var lines = ["# made by the tests", "TITLE \"test look \(size)\"", "", "LUT_3D_SIZE \(size)"]
        let top = domainMax ?? [1, 1, 1]
        if let domainMax {
            lines.append("DOMAIN_MIN 0 0 0")
            lines.append("DOMAIN_MAX " + domainMax.map { String(format: "%.6f", $0) }.joined(separator: " "))
        }
        let step = Double(size - 1)
        for b in 0..<size {
            for g in 0..<size {
                for r in 0..<size {
                    let out = look(Double(r) / step * top[0], Double(g) / step * top[1], Double(b) / step * top[2])
                    lines.append(String(format: "%.6f %.6f %.6f", out.0, out.1, out.2))
                }
            }
        }
        let url = directory.appendingPathComponent(name)
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: url)
        return url
    }

    /// The swscale flags every farm conversion uses, as the `scale` filter's option.
    public static let scaleFlags = "flags=bicubic+accurate_rnd+bitexact"

    /// An ffmpeg filter graph doing what the farm's PictureGrader does around `filter`: limited
    /// BT.709 YUV to full-range planar RGB by libswscale, `filter` on the RGB, and back.
    public static func graph(around filter: String) -> String {
        "scale=\(scaleFlags):in_color_matrix=bt709:out_color_matrix=bt709:in_range=tv:out_range=pc,format=gbrp,"
            + filter
            + ",scale=\(scaleFlags):in_color_matrix=bt709:out_color_matrix=bt709:in_range=pc:out_range=tv,"
            + "format=yuv420p"
    }

    /// The ASC CDL as a `geq` expression for one channel (`r`, `g` or `b`) in double precision:
    /// slope, offset, clamp, power, clamp, then saturation about Rec. 709 luma, clamp, rounded
    /// to the nearest sample (`+ 0.5`, as geq truncates).
    public static func cdlExpression(
        channel: Character, slope: [Double], offset: [Double], power: [Double], saturation: Double
    ) -> String {
        func sop(_ index: Int, _ name: Character) -> String {
            "clip(pow(clip(\(name)(X,Y)/255*\(slope[index])+\(offset[index]),0,1),\(power[index])),0,1)"
        }
        let (r, g, b) = (sop(0, "r"), sop(1, "g"), sop(2, "b"))
        let luma = "(0.2126*\(r)+0.7152*\(g)+0.0722*\(b))"
        let own = channel == "r" ? r : channel == "g" ? g : b
        return "clip(\(luma)+\(saturation)*(\(own)-\(luma)),0,1)*255+0.5"
    }
}

/// The largest and the mean absolute difference between the samples of two lists of frames.
public func sampleDifference(_ first: [[UInt8]], _ second: [[UInt8]]) -> (max: Int, mean: Double) {
    var largest = 0
    var total = 0
    var count = 0
    for (a, b) in zip(first, second) {
        for (x, y) in zip(a, b) {
            let difference = abs(Int(x) - Int(y))
            largest = max(largest, difference)
            total += difference
            count += 1
        }
    }
    return (largest, count == 0 ? 0 : Double(total) / Double(count))
}
