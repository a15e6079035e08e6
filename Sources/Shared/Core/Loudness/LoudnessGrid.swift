/// The 100 ms steps that BS.1770's gating blocks (400 ms) and EBU's short-term windows (3 s)
/// are made of, counted from the first sample of a render. A step's bounds are whole samples
/// at any rate, so blocks of sound measured on different machines add up step by step.
public struct LoudnessGrid: Sendable, Hashable {
    public let sampleRate: Int

    public init(sampleRate: Int) {
        self.sampleRate = sampleRate
    }

    /// The first sample (from the render's start) of step `k`.
    public func start(ofStep k: Int64) -> Int64 {
        k * Int64(sampleRate) / 10
    }

    /// The step holding sample `n` (from the render's start).
    public func step(containing n: Int64) -> Int64 {
        // The last k whose start is <= n; start(k) = floor(k * rate / 10).
        var k = n * 10 / Int64(sampleRate)
        while start(ofStep: k + 1) <= n { k += 1 }
        while start(ofStep: k) > n { k -= 1 }
        return k
    }

    /// Steps wholly inside a render of `samples` samples.
    public func wholeSteps(in samples: Int64) -> Int {
        var k = samples * 10 / Int64(sampleRate)
        while k > 0, start(ofStep: k) > samples { k -= 1 }
        return Int(k)
    }
}
