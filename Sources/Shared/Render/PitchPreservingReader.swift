import FarmCore
import FarmMedia
import Foundation

/// An item's sound at its speed with its pitch kept (WSOLA): Hann windows of 2048 media samples
/// overlap-added every 1024 output samples. Window k is read near `k × 1024 × speed`, moved by up
/// to 256 samples to where it best continues the window before it, so the waveforms meet in
/// phase instead of cancelling.
///
/// That search chains each window to the one before, which would tie a sample to where mixing
/// started. So the chain restarts at fixed anchors (every 16th window is not moved): a window's
/// position, and so every output sample, depends on its index alone, and every block, chunk and
/// worker computes the same value for it. The restart costs one unaligned overlap every 16
/// windows (0.34 s at 48 kHz).
final class PitchPreservingReader {
    static let hop = 1024
    static let window = 2 * hop
    /// How far a window may move to meet the one before.
    static let reach = 256
    /// Every `anchorSpacing`th window stays where the speed puts it.
    static let anchorSpacing: Int64 = 16

    private let path: String
    private let reads: MediaReads?
    /// The item at speed 1: input sample i is media sample `source.start × rate + i`.
    private let media: Item
    private let layout: AudioLayout
    private let speed: Double
    private var reader: AudioReader?
    /// Input samples held, one array per channel, from input index `inputStart`.
    private var input: [[Float]]
    private var inputStart: Int64 = 0
    private let scratch: SampleBlock
    /// Channels and weights of the signal windows are aligned on (`guide(channels:)`).
    private let guide: [(channel: Int, weight: Float)]
    /// The periodic Hann window: two of them a hop apart sum to exactly 1.
    private static let weights: [Float] = (0..<window).map {
        Float(0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(window)))
    }

    init(path: String, item: Item, layout: AudioLayout, reads: MediaReads?) {
        self.path = path
        self.reads = reads
        var media = item
        media.sourceDuration = item.duration
        media.timeMap = nil
        self.media = media
        self.layout = layout
        speed = item.speed.seconds
        input = Array(repeating: [], count: layout.channels)
        scratch = SampleBlock(channels: layout.channels, capacity: 4096)
        guide = Self.guide(channels: layout.channels)
    }

    /// Chosen moves of the windows from the current anchor on.
    private var moves: [Int64: Int64] = [:]
    /// The starts of the windows one `add` plays, reused from call to call.
    private var windowStarts: [Int64] = []

    /// Where the speed puts window `k` in the input.
    private func nominal(_ k: Int64) -> Int64 { Int64((Double(k * Int64(Self.hop)) * speed).rounded()) }

    /// The signal windows are aligned on: the left channel of the stereo mix, whatever the
    /// output's layout (mono's one channel; stereo's left; 5.1's front left, centre and back
    /// left at libswresample's −3 dB). So a stereo or mono source placed in 5.1 (in the front
    /// pair, in the centre) moves its windows as in a stereo or mono output, and a 5.1 source as
    /// in its stereo down-mix; 5.1's front left alone may be silent.
    static func guide(channels: Int) -> [(channel: Int, weight: Float)] {
        channels == 6 ? [(0, 1), (2, Float(0.5).squareRoot()), (4, Float(0.5).squareRoot())] : [(0, 1)]
    }

    private func anchor(of k: Int64) -> Int64 {
        k < 0 ? k : k - k % Self.anchorSpacing
    }

    /// Where window `k` starts in the input: its nominal place, moved to continue window k − 1
    /// best (the largest correlation over the half they overlap), unless it is an anchor.
    private func start(ofWindow k: Int64) -> Int64 {
        if k < 0 || k == anchor(of: k) { return nominal(k) }
        if let move = moves[k] { return nominal(k) + move }
        // What window k - 1 would have played next, had it gone on.
        let continuation = Int(start(ofWindow: k - 1) + Int64(Self.hop) - inputStart)
        let base = Int(nominal(k) - inputStart)
        var best = (move: 0, score: -Float.infinity)
        for move in -Self.reach...Self.reach {
            var score: Float = 0
            // Every 4th sample of the guide: enough to find the phase, 4x cheaper.
            for j in stride(from: 0, to: Self.hop, by: 4) {
                var here: Float = 0
                var there: Float = 0
                for (channel, weight) in guide {
                    here += input[channel][base + move + j] * weight
                    there += input[channel][continuation + j] * weight
                }
                score += here * there
            }
            if score > best.score { best = (move, score) }
        }
        moves[k] = Int64(best.move)
        return nominal(k) + Int64(best.move)
    }

    /// Adds item-local output samples `first ..< first + count`, times `gain`, into `block` from
    /// its sample `offset`.
    func add(from first: Int64, count: Int, into block: SampleBlock, at offset: Int, gain: AudioReader.Gain) throws {
        let hop = Int64(Self.hop)
        let firstWindow = first / hop - 1
        let lastWindow = (first + Int64(count) - 1) / hop
        let reach = Int64(Self.reach)
        let from = anchor(of: firstWindow)
        try load(nominal(from) - reach..<nominal(lastWindow) + reach + Int64(Self.window))
        moves = moves.filter { $0.key >= from }
        // Each window's start looked up once, not twice per sample.
        windowStarts.removeAll(keepingCapacity: true)
        for k in firstWindow...lastWindow { windowStarts.append(start(ofWindow: k)) }
        for i in 0..<count {
            let n = first + Int64(i)
            let factor: Float
            switch gain {
            case .constant(let value): factor = value
            case .perSample(let factors): factor = factors[i]
            }
            for k in (n / hop - 1)...(n / hop) {
                let j = Int(n - k * hop)
                let index = Int(windowStarts[Int(k - firstWindow)] + Int64(j) - inputStart)
                let weight = Self.weights[j] * factor
                for channel in 0..<layout.channels {
                    block[channel, offset + i] += input[channel][index] * weight
                }
            }
        }
    }

    /// Makes `input` hold `range` of input samples: keeps what it has from there on, reads
    /// forward for the rest, and starts over when asked to go back. Before the item's start
    /// there is silence.
    private func load(_ range: Range<Int64>) throws {
        if reader == nil || range.lowerBound < inputStart {
            reader = try AudioReader(
                path: path, item: media, layout: layout, offset: max(0, range.lowerBound), reads: reads)
            inputStart = range.lowerBound
            let silent = Int(max(0, -range.lowerBound))
            input = Array(repeating: [Float](repeating: 0, count: silent), count: layout.channels)
        } else {
            let drop = Int(range.lowerBound - inputStart)
            for channel in 0..<layout.channels { input[channel].removeFirst(min(drop, input[channel].count)) }
            inputStart = range.lowerBound
        }
        while inputStart + Int64(input[0].count) < range.upperBound {
            let count = Int(min(Int64(scratch.capacity), range.upperBound - inputStart - Int64(input[0].count)))
            scratch.clear(count: count)
            try reader!.read(count: count, into: scratch, at: 0, gain: .constant(1))
            for channel in 0..<layout.channels {
                input[channel].append(contentsOf: (0..<count).lazy.map { [scratch] in scratch[channel, $0] })
            }
        }
    }
}
