import Foundation

/// A programme's loudness per ITU-R BS.1770-4 and EBU Tech 3342, from the energies of its
/// 100 ms steps: integrated loudness over 400 ms gating blocks (75 % overlap) with the absolute
/// gate at −70 LUFS and the relative one 10 LU below, and loudness range over 3 s short-term
/// windows gated at −70 LUFS and 20 LU below, from the 10th to the 95th percentile.
public struct ProgrammeLoudness: Sendable, Codable, Hashable {
    /// LUFS; nil when no gating block passes the gates (silence, or under 400 ms of sound).
    public var integrated: Double?
    /// LU; 0 when there are too few short-term windows.
    public var range: Double

    /// From the energies of the whole steps of a render of `samples` samples, step 0 first.
    public init(steps energies: [Double], samples: Int64, sampleRate: Int) {
        let grid = LoudnessGrid(sampleRate: sampleRate)
        let whole = min(energies.count, grid.wholeSteps(in: samples))
        func mean(from j: Int, steps: Int) -> Double {
            var sum = 0.0
            for k in j..<(j + steps) { sum += energies[k] }
            return sum / Double(grid.start(ofStep: Int64(j + steps)) - grid.start(ofStep: Int64(j)))
        }
        let blocks = whole >= 4 ? (0...(whole - 4)).map { mean(from: $0, steps: 4) } : []
        integrated = Self.gated(blocks, relative: 10).map { Self.lufs(Self.average($0)) }
        let shortTerm = whole >= 30 ? (0...(whole - 30)).map { mean(from: $0, steps: 30) } : []
        if let kept = Self.gated(shortTerm, relative: 20), kept.count > 1 {
            let sorted = kept.map(Self.lufs).sorted()
            let low = sorted[Int(Double(sorted.count - 1) * 0.1 + 0.5)]
            let high = sorted[Int(Double(sorted.count - 1) * 0.95 + 0.5)]
            range = high - low
        } else {
            range = 0
        }
    }

    /// Sums the blocks' first-pass figures step by step (in block order: the same sums on
    /// every machine) over a render of `samples` samples.
    public static func combining(_ blocks: [BlockLoudness], samples: Int64, sampleRate: Int) -> ProgrammeLoudness {
        let whole = LoudnessGrid(sampleRate: sampleRate).wholeSteps(in: samples)
        var energies = [Double](repeating: 0, count: whole)
        for block in blocks.sorted(by: { $0.block < $1.block }) {
            for (offset, energy) in block.energies.enumerated() {
                let step = Int(block.firstStep) + offset
                if step >= 0, step < whole { energies[step] += energy }
            }
        }
        return ProgrammeLoudness(steps: energies, samples: samples, sampleRate: sampleRate)
    }

    static func lufs(_ meanSquare: Double) -> Double { -0.691 + 10 * log10(meanSquare) }

    static func average(_ values: [Double]) -> Double {
        values.reduce(0, +) / Double(values.count)
    }

    /// The blocks above −70 LUFS and above `relative` LU under their mean; nil when none are.
    static func gated(_ blocks: [Double], relative: Double) -> [Double]? {
        let absolute = blocks.filter { lufs($0) > -70 }
        guard !absolute.isEmpty else { return nil }
        let threshold = lufs(average(absolute)) - relative
        let kept = absolute.filter { lufs($0) > threshold }
        return kept.isEmpty ? nil : kept
    }
}
