import FarmCore
import FarmMedia

/// An item's `pan`, as a balance: at each sample the far side's channels are scaled by
/// 1 - |pan| and the near side's are left as they are, so a centred item sounds exactly as one
/// without `pan`, and a hard-panned one keeps only its own side. Left is front and back left (0
/// and 4 of FFmpeg's 5.1 layout), right is 1 and 5; centre, LFE and a mono output are not panned.
struct PanBalance {
    private let curve: VolumeEnvelope
    /// Per output channel: -1 on the left, 1 on the right, 0 not panned.
    private let sides: [Float]

    init(_ pan: Animated<Double>, sampleRate: Int, channels: Int) {
        curve = VolumeEnvelope(pan, sampleRate: sampleRate)
        switch channels {
        case 2: sides = [-1, 1]
        case 6: sides = [-1, 1, 0, 0, -1, 1]
        default: sides = [Float](repeating: 0, count: channels)
        }
    }

    /// Adds samples `0 ..< count` of `source` into `block` from its sample `offset`, balanced by
    /// the pan of item-local samples `first ..< first + count`; `values` is scratch space.
    func add(
        _ source: SampleBlock, count: Int, into block: SampleBlock, at offset: Int, first: Int64,
        values: inout [Float]
    ) {
        let pan = curve.gains(from: first, count: count, into: &values)
        for channel in 0..<block.channels {
            let side = sides[channel]
            for i in 0..<count {
                let value: Float
                switch pan {
                case .constant(let constant): value = constant
                case .perSample(let values): value = values[i]
                }
                // The far side keeps 1 - |pan|, the near side (and an unpanned channel) all.
                let factor: Float = Swift.min(1, 1 + side * value)
                block[channel, offset + i] += source[channel, i] * factor
            }
        }
    }
}
