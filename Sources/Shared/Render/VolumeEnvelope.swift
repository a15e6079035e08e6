import FarmCore
import FarmMedia
import Foundation

/// An item's volume per sample, from its keyframes converted to sample positions once.
///
/// Exact at the keys and along each key's interpolation between them, in double precision (the
/// curves are `Interpolation`'s, as for pictures); a sample's gain depends on
/// its index alone, so every block, chunk and worker computes the same value for it. No rational
/// arithmetic per sample: that made the mixer the slowest part of a render.
struct VolumeEnvelope {
    /// A transition's fade over item-local samples `[start, start + length)`.
    struct Fade {
        var start: Int64
        var length: Int64
        var rising: Bool
        var curve: Transition.AudioFade

        func overlaps(_ first: Int64, count: Int) -> Bool {
            curve != .none && start < first + Int64(count) && first < start + length
        }

        /// Multiplies the gains of samples `first ..< first + count` that fall in the fade.
        func apply(from first: Int64, count: Int, to gains: UnsafeMutableBufferPointer<Float>) {
            let from = Swift.max(first, start)
            let to = Swift.min(first + Int64(count), start + length)
            guard from < to else { return }
            for n in from..<to {
                let progress = Double(n - start) / Double(length)
                let share: Double
                switch curve {
                case .equalPower: share = rising ? sin(progress * .pi / 2) : cos(progress * .pi / 2)
                case .linear: share = rising ? progress : 1 - progress
                case .none: share = 1
                }
                gains[Int(n - first)] *= Float(share)
            }
        }
    }

    private let constant: Float?
    private let fades: [Fade]
    /// Key positions in item-local samples (fractional where a key falls between samples).
    private let positions: [Double]
    private let values: [Double]
    private let curves: [Interpolation]

    init(_ volume: Animated<Double>, sampleRate: Int, fades: [Fade] = []) {
        self.fades = fades
        switch volume {
        case .constant(let value):
            constant = Float(value)
            positions = []
            values = []
            curves = []
        case .keys(let keys):
            constant = keys.count == 1 ? Float(keys[0].value) : nil
            let rate = Rational(Int64(sampleRate))
            positions = keys.map { ($0.time * rate).seconds }
            values = keys.map(\.value)
            curves = keys.map(\.interpolation)
        }
    }

    /// The gain of item-local samples `first ..< first + count`: a constant, or one factor each
    /// in `buffer` (grown once to the largest block, then reused).
    func gains(from first: Int64, count: Int, into buffer: inout [Float]) -> AudioReader.Gain {
        let faded = fades.contains { $0.overlaps(first, count: count) }
        if let constant, !faded { return .constant(constant) }
        if buffer.count < count { buffer = [Float](repeating: 0, count: count) }
        buffer.withUnsafeMutableBufferPointer { gains in
            defer { for fade in fades { fade.apply(from: first, count: count, to: gains) } }
            if let constant {
                gains.update(repeating: constant)
                return
            }
            // Samples rise, so the segment only moves forward within one call.
            var segment = 0
            for i in 0..<count {
                let n = Double(first + Int64(i))
                while segment < positions.count && positions[segment] <= n { segment += 1 }
                if segment == 0 {
                    gains[i] = Float(values[0])
                } else if segment == positions.count {
                    gains[i] = Float(values[segment - 1])
                } else {
                    let (a, b) = (positions[segment - 1], positions[segment])
                    let (from, to) = (values[segment - 1], values[segment])
                    gains[i] = Float(from + (to - from) * curves[segment - 1].ease((n - a) / (b - a)))
                }
            }
        }
        return .perSample(buffer)
    }
}
