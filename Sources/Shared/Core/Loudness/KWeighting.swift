/// ITU-R BS.1770's K-weighting for one channel: a high shelf (the head's effect) then a
/// high-pass (the RLB curve), as two biquads whose coefficients are made for any sample rate
/// from the analogue prototypes, as libebur128 does, so 44.1 and 96 kHz measure like 48 kHz.
public struct KWeighting: Sendable {
    struct Biquad: Sendable {
        var b0: Double, b1: Double, b2: Double, a1: Double, a2: Double
        var z1 = 0.0
        var z2 = 0.0

        /// Transposed direct form II: the state stays small, so long runs keep their precision.
        mutating func run(_ x: Double) -> Double {
            let y = b0 * x + z1
            z1 = b1 * x - a1 * y + z2
            z2 = b2 * x - a2 * y
            return y
        }
    }

    private var shelf: Biquad
    private var highPass: Biquad

    public init(sampleRate: Int) {
        let rate = Double(sampleRate)
        var f0 = 1681.974450955533
        let gain = 3.999843853973347
        var q = 0.7071752369554196
        var k = tan(Double.pi * f0 / rate)
        let vh = pow(10.0, gain / 20.0)
        let vb = pow(vh, 0.4996667741545416)
        var a0 = 1.0 + k / q + k * k
        shelf = Biquad(
            b0: (vh + vb * k / q + k * k) / a0, b1: 2.0 * (k * k - vh) / a0, b2: (vh - vb * k / q + k * k) / a0,
            a1: 2.0 * (k * k - 1.0) / a0, a2: (1.0 - k / q + k * k) / a0)
        f0 = 38.13547087602444
        q = 0.5003270373238773
        k = tan(Double.pi * f0 / rate)
        a0 = 1.0 + k / q + k * k
        highPass = Biquad(b0: 1, b1: -2, b2: 1, a1: 2.0 * (k * k - 1.0) / a0, a2: (1.0 - k / q + k * k) / a0)
    }

    /// The next K-weighted sample.
    public mutating func filter(_ x: Float) -> Double {
        highPass.run(shelf.run(Double(x)))
    }

    /// BS.1770's weight of each channel of a layout in FFmpeg's order: left, right and centre 1,
    /// the LFE left out, the surrounds +1.5 dB (1.41).
    public static func channelWeights(channels: Int) -> [Double] {
        switch channels {
        case 6: [1, 1, 1, 0, 1.41, 1.41]
        default: Array(repeating: 1, count: channels)
        }
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
