import FarmCore
import FarmMedia
import FarmRender
import Foundation
import TestSupport
import Testing

/// Sound rendered as audio blocks (about 10 s each, encoded by separate encoders): the seams
/// between blocks neither click nor lag, and the thread count changes nothing.
@Suite struct AudioBlockTests {
    static func project(in dir: URL, audioCodec: String) throws -> LoadedProject {
        FFmpegLog.configure(verbose: false)
        return try ProjectLoader().load(file: TestProjects.soundAcrossBlocks(in: dir, audioCodec: audioCodec).path)
    }

    static func renderLocally(_ loaded: LoadedProject, threads: Int, to file: URL) throws {
        var configuration = LocalRender.Configuration()
        configuration.threads = threads
        try LocalRender(loaded: loaded, configuration: configuration)
            .render(frames: 0..<loaded.project.frameCount, to: file)
    }

    @Test func blocksFollowTheProjectAlone() {
        let blocks = AudioBlocks.plan(samples: 0..<1_200_000, sampleRate: 48000)
        #expect(blocks.map(\.start) == [0, 480_256, 960_512])
        #expect(blocks.last?.end == 1_200_000)
        #expect(blocks.allSatisfy { $0.start % AudioBlocks.frameSamples == 0 })
    }

    /// The sound and the pictures of a 25 s timeline (three audio blocks) are the same rendered
    /// whole on one thread or two, in one pass, or as a farm makes them: 4 s chunks and the
    /// blocks each rendered alone (`ChunkedRender`, the workers' code), then joined.
    @Test(arguments: ["pcm", "aac"]) func threadsAndChunkingChangeNothing(codec: String) throws {
        try withTemporaryDirectory { dir in
            let loaded = try Self.project(in: dir, audioCodec: codec)
            let one = dir.appendingPathComponent("one.mov")
            let two = dir.appendingPathComponent("two.mov")
            try Self.renderLocally(loaded, threads: 1, to: one)
            try Self.renderLocally(loaded, threads: 2, to: two)
            #expect(try audioHash(one) == audioHash(two))
            let frames = try frameHashes(one)
            #expect(frames.count == 750)
            #expect(try frameHashes(two) == frames)
            // The single-pass renderer writes the same blocks.
            let single = try render(loaded, to: "single.mov", in: dir)
            #expect(try audioHash(single) == audioHash(one))
            #expect(loaded.project.audioBlocks().count == 3)
            let parts = dir.appendingPathComponent("parts")
            try FileManager.default.createDirectory(at: parts, withIntermediateDirectories: true)
            let chunked = dir.appendingPathComponent("chunked.mov")
            try ChunkedRender(loaded: loaded, workDirectory: parts).renderAll(size: .seconds(Rational(4)), to: chunked)
            #expect(try audioHash(chunked) == audioHash(one), "\(codec)")
            #expect(try frameHashes(chunked) == frames, "\(codec)")
        }
    }

    @Test func aacSeamsNeitherLagNorClick() throws {
        try withTemporaryDirectory { dir in
            let pcmFile = dir.appendingPathComponent("pcm.mov")
            let aacFile = dir.appendingPathComponent("aac.mov")
            try Self.renderLocally(try Self.project(in: dir, audioCodec: "pcm"), threads: 2, to: pcmFile)
            try Self.renderLocally(try Self.project(in: dir, audioCodec: "aac"), threads: 2, to: aacFile)
            let pcm = try firstChannelSamples(pcmFile)
            let aac = try firstChannelSamples(aacFile)
            #expect(pcm.count == 1_200_000)
            #expect(aac.count >= pcm.count)

            func rms(_ range: Range<Int>) -> Double {
                let sum = range.reduce(0.0) { $0 + pow(Double(aac[$1] - pcm[$1]), 2) }
                return (sum / Double(range.count)).squareRoot()
            }
            let whole = rms(0..<pcm.count)
            for seam in AudioBlocks.plan(samples: 0..<1_200_000, sampleRate: 48000).dropFirst().map({ Int($0.start) }) {
                // The lag that best lines the decoded sound up with the mix around the seam.
                let window = (seam - 2048)..<(seam + 2048)
                let lag = (-64...64).max { a, b in
                    let score = { (lag: Int) in window.reduce(0.0) { $0 + Double(pcm[$1] * aac[$1 + lag]) } }
                    return score(a) < score(b)
                }
                #expect(lag == 0, "seam at \(seam): best lag \(lag ?? 0)")
                let near = rms((seam - 1024)..<(seam + 1024))
                let ratio = 20 * log10(near / whole)
                print("seam at sample \(seam): lag \(lag ?? 0), error \(near) near it, \(whole) overall (\(ratio) dB)")
                #expect(ratio <= 3, "seam at \(seam): \(ratio) dB above the whole file's error")
            }
        }
    }
}
