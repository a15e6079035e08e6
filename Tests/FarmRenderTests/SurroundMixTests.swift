import FarmCore
import FarmMedia
import FarmRender
import Foundation
import TestSupport
import Testing

/// 5.1 output (`output.audio.channels: 6`) in every container and codec that holds it: a render
/// of the whole timeline (`LocalRender`, what `farm render --local` runs) and one made of 4 s
/// chunks and two audio blocks, each rendered alone and joined (`ChunkedRender`, what workers
/// and the coordinator run), are the same sound, and both are ffmpeg's mix (`SurroundSources`).
@Suite struct SurroundMixTests {
    @Test(arguments: [
        SurroundSources.Export(container: "mkv", audio: "pcm"), SurroundSources.Export(container: "mov", audio: "pcm"),
        SurroundSources.Export(container: "mp4", audio: "aac"), SurroundSources.Export(container: "mov", audio: "aac"),
        SurroundSources.Export(container: "mkv", audio: "aac"),
    ])
    func chunksAndWholeRendersAreFFmpegsMix(export: SurroundSources.Export) throws {
        try withTemporaryDirectory { dir in
            try SurroundSources.makeSources(in: dir)
            let loaded = try loadProject(SurroundSources.project(export: export.json), in: dir)
            let local = dir.appendingPathComponent("local.\(export.container)")
            try LocalRender(loaded: loaded).render(frames: 0..<loaded.project.frameCount, to: local)
            let parts = dir.appendingPathComponent("parts")
            try FileManager.default.createDirectory(at: parts, withIntermediateDirectories: true)
            let chunked = dir.appendingPathComponent("chunked.\(export.container)")
            let render = ChunkedRender(loaded: loaded, workDirectory: parts)
            #expect(loaded.project.audioBlocks().count == 2)
            try render.renderAll(size: .seconds(Rational(4)), to: chunked)
            for file in [local, chunked] { try SurroundSources.expectSixChannels(file, export: export) }
            let localSound = try SurroundSources.decoded(local)
            let chunkedSound = try SurroundSources.decoded(chunked)
            let differing = zip(localSound, chunkedSound).filter { $0 != $1 }.count
            #expect(
                localSound.count == chunkedSound.count && differing == 0, "\(export): chunks differ at \(differing)")
            print(try SurroundSources.expectMatchesOracle(localSound, export: export, in: dir) + ", chunks equal")
        }
    }
}
