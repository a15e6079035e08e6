import FarmCore
import FarmRender
import Foundation
import TestSupport
import Testing

/// Every file in `../shared/wild/media` (what phones, cameras, browsers, broadcast chains and
/// field recorders wrote) as a one-item project: rendered whole (`farm render --local`'s path)
/// and in 7-frame chunks joined as the coordinator joins them, which must be the same file's
/// frames and samples; the whole against ffmpeg's decode under docs/media.md's rules, to the
/// result docs/media.md's table "Files users brought" documents for that file. Skips, saying so,
/// where the folder is absent.
@Suite(.enabled(if: WildFiles.folder != nil, Comment(rawValue: WildFiles.absent)))
struct WildMediaTests {
    /// `FARM_WILD_ONLY=text` runs only the files whose name contains it.
    static let files = WildFiles.media.filter { name in
        guard let only = ProcessInfo.processInfo.environment["FARM_WILD_ONLY"] else { return true }
        return name.contains(only)
    }

    @Test func everyFileHasADocumentedResult() throws {
        let rows = try WildMediaRow.documented()
        let undocumented = WildFiles.media.filter { rows[$0] == nil }
        let gone = rows.keys.filter { !WildFiles.media.contains($0) }.sorted()
        #expect(undocumented.isEmpty, "docs/media.md's table lacks \(undocumented)")
        #expect(gone.isEmpty, "docs/media.md's table names files the folder lacks: \(gone)")
    }

    @Test(arguments: files)
    func rendersAsDocumented(file: String) throws {
        let row = try #require(try WildMediaRow.documented()[file], "docs/media.md's table lacks \(file)")
        let source = try WildSource(WildFiles.url(of: file))
        try withTemporaryDirectory { dir in
            if row.picture == .refused {
                do {
                    _ = try loadProject(source.project, in: dir)
                    Issue.record("\(file) loads; docs/media.md says it is refused")
                } catch {
                    let message = "\(error)"
                    #expect(message.contains(file), "\(file): the refusal does not name the file: \(message)")
                    #expect(!message.contains("\n"), "\(file): the refusal is more than one line: \(message)")
                }
                // A file whose pictures do not decode may still be sound on an audio track.
                guard row.sound != .none else { return }
            }
            let asSound = row.picture == .refused || !source.hasPicture
            let loaded = try loadProject(source.project(sound: asSound), in: dir)
            let whole = dir.appendingPathComponent("whole.mkv")
            try LocalRender(loaded: loaded).render(frames: 0..<loaded.project.frameCount, to: whole)
            let parts = dir.appendingPathComponent("parts")
            try FileManager.default.createDirectory(at: parts, withIntermediateDirectories: true)
            let chunked = dir.appendingPathComponent("chunked.mkv")
            try ChunkedRender(loaded: loaded, workDirectory: parts).renderAll(size: .frames(7), to: chunked)
            if !asSound {
                #expect(try frameHashes(chunked) == frameHashes(whole), "\(file): 7-frame chunks differ from --local")
                try checkPictures(whole, of: source, row: row, fps: loaded.project.output.fps)
            }
            if row.sound != .none {
                #expect(try audioHash(chunked) == audioHash(whole), "\(file): chunked sound differs from --local")
                let seconds =
                    asSound ? source.duration : Rational(loaded.project.frameCount) / loaded.project.output.fps
                try checkSound(whole, of: source, row: row, seconds: seconds)
            }
        }
    }

    /// Sound read from other places in each file (an audio block may start anywhere in an item):
    /// each within the table's tolerance of ffmpeg's decode of the whole file, so no pre-roll or
    /// decode start makes a block's sound differ from the file's.
    @Test(arguments: files)
    func soundFromSeveralStartsIsTheWholeFilesDecode(file: String) throws {
        let row = try #require(try WildMediaRow.documented()[file], "docs/media.md's table lacks \(file)")
        let source = try WildSource(WildFiles.url(of: file))
        guard row.sound != .none, source.hasSound, !source.still else { return }
        let length = Rational(1, 2)
        for start in [Rational(37, 100), Rational(13, 10)] where !(source.length < start + length) {
            try withTemporaryDirectory { dir in
                let part = source.playing(from: start, for: length)
                let loaded = try loadProject(part.project(sound: true), in: dir)
                let output = dir.appendingPathComponent("sound.mkv")
                try LocalRender(loaded: loaded).render(frames: 0..<loaded.project.frameCount, to: output)
                try checkSound(output, of: part, row: row, seconds: length)
            }
        }
    }

    private func checkPictures(_ whole: URL, of source: WildSource, row: WildMediaRow, fps: Rational) throws {
        let (width, height) = source.canvas
        let rendered = try decodedYUV(whole, width: width, height: height)
        let oracle = try FrameRuleOracle(file: source.url, graph: source.oracleGraph, width: width, height: height)
        var worst = Double.infinity
        // Frames that are another of ffmpeg's pictures exactly: the frame rule chose otherwise.
        var elsewhere: [String] = []
        for (index, picture) in rendered.enumerated() {
            let shown = source.still ? 0 : oracle.index(at: source.start + Rational(Int64(index)) / fps)
            let match = psnr(picture, oracle.pictures[shown])
            worst = min(worst, match)
            if match < .infinity, let other = oracle.pictures.firstIndex(of: picture) {
                elsewhere.append("frame \(index) is picture \(other), not \(shown)")
            }
        }
        print("wild: \(source.url.lastPathComponent) picture \(rendered.count) frames, worst \(worst) dB \(elsewhere)")
        switch row.picture {
        case .exact:
            #expect(
                worst == .infinity, "\(source.url.lastPathComponent): a frame is \(worst) dB from ffmpeg's \(elsewhere)"
            )
        case .close(let threshold):
            #expect(worst >= threshold, "\(source.url.lastPathComponent): a frame is \(worst) dB from ffmpeg's")
        case .none, .refused:
            Issue.record("\(source.url.lastPathComponent) has a picture; docs/media.md says none")
        }
    }

    /// The render's sound against ffmpeg's decode of the same span (`WildSource.expectedSound`),
    /// sample for sample, or 100 ms by 100 ms where the table says the level is what holds.
    private func checkSound(_ whole: URL, of source: WildSource, row: WildMediaRow, seconds: Rational) throws {
        let name = source.url.lastPathComponent
        let expected = try source.expectedSound(
            samples: Int((seconds * Rational(48000)).rounded), asDecoded: row.soundAsDecoded)
        let actual = try stereoSamples(whole, filter: "anull")
        #expect(actual.count == expected.count, "\(name): \(actual.count) samples, ffmpeg's \(expected.count)")
        #expect(actual.contains { $0 != 0 } || expected.allSatisfy { $0 == 0 }, "\(name): the render is silent")
        let worst = zip(actual, expected).map { abs(Int($0) - Int($1)) }.max() ?? 0
        let window = 2 * 4800
        let levels = stride(from: 0, to: min(actual.count, expected.count), by: window).map { first in
            let end = min(first + window, actual.count, expected.count)
            return abs(decibels(actual[first..<end]) - decibels(expected[first..<end]))
        }
        print("wild: \(name) sound worst \(worst), level \(levels.max() ?? 0) dB")
        switch row.sound {
        case .samples(let level):
            #expect(worst <= level, "\(name): sound differs from ffmpeg's by up to \(worst)")
        case .level(let limit):
            #expect(levels.allSatisfy { $0 <= limit }, "\(name): a 100 ms window is \(levels.max() ?? 0) dB off")
        case .none:
            break
        }
    }

    /// Mean power in dB of full scale (a floor of -120 for silence).
    private func decibels(_ samples: ArraySlice<Int16>) -> Double {
        let power = samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(1, samples.count))
        return max(-120, 10 * log10(power / (32768.0 * 32768.0)))
    }
}
