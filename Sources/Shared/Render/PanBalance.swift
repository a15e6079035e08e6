import FarmCore
import FarmMedia

/// An item's `pan`, as a balance: at each sample the far side's channels are scaled by
/// 1 - |pan| and the near side's are left as they are, so a centred item sounds exactly as one
/// without `pan`, and a hard-panned one keeps only its own side. Left is front and back left (0
/// and 4 of FFmpeg's 5.1 layout), right is 1 and 5; centre, LFE and a mono output are not panned.
struct PanBalance {
    private let curve: VolumeEnvelope

    init(_ pan: Animated<Double>, sampleRate: Int) {
        curve = VolumeEnvelope(pan, sampleRate: sampleRate)
    }

    /// The output channels on each side.
    static func sides(channels: Int) -> (left: Set<Int>, right: Set<Int>) {
        switch channels {
        case 2: return ([0], [1])
        case 6: return ([0, 4], [1, 5])
        default: return ([], [])
        }
    }

    /// Adds samples `0 ..< count` of `source` into `block` from its sample `offset`, balanced by
    /// the pan of item-local samples `first ..< first + count`; `values` is scratch space.
    func add(
        _ source: SampleBlock, count: Int, into block: SampleBlock, at offset: Int, first: Int64,
        values: inout [Float]
    ) {
        let pan = curve.gains(from: first, count: count, into: &values)
        let sides = Self.sides(channels: block.channels)
        for channel in 0..<block.channels {
            let (left, right) = (sides.left.contains(channel), sides.right.contains(channel))
            for i in 0..<count {
                let value: Float
                switch pan {
                case .constant(let constant): value = constant
                case .perSample(let values): value = values[i]
                }
                let factor: Float = left ? Swift.min(1, 1 - value) : right ? Swift.min(1, 1 + value) : 1
                block[channel, offset + i] += source[channel, i] * factor
            }
        }
    }
}
