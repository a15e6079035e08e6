import FarmCore
import FarmRender
import FarmStore
import Foundation

/// What upload intake asks of a segment before accepting it: throws `SegmentVerifier.Failure`
/// for a bad segment, `SegmentCheckUnavailable` when no verdict could be reached. A seam, so
/// intake's rules are tested without a child process.
package protocol SegmentChecking: AnyObject {
    func verify(_ url: URL, chunk: ChunkRecord, job: JobRecord) throws
    /// Gets ready for the first check ahead of it; a failure shows at that check.
    func prepare()
}

/// The check could not run (the verifier cannot be started, or answers nonsense): the
/// coordinator's trouble, not the segment's, so no verdict is reached.
package struct SegmentCheckUnavailable: Error, CustomStringConvertible {
    package var description: String

    package init(description: String) {
        self.description = description
    }
}

/// Verifies uploaded segments before they are accepted, in a `HelperCommand.verifySegments` child
/// (a `HelperProcess`), so that a file which makes FFmpeg crash or hang
/// fails its attempt (and, as a poison chunk, its job) while the coordinator serves on. Checked
/// in-process, the same file would crash the coordinator again at every restart. Used from one
/// thread at a time (the verifier queue).
final class SegmentCheck: SegmentChecking {

    private let helper: HelperProcess

    /// `program` is the `farm` executable; a decode stuck for `timeoutSeconds` is a bad segment.
    init(program: String, timeoutSeconds: Int = 300) {
        helper = HelperProcess(HelperCommand.verifySegments.argv(program: program), timeoutSeconds: timeoutSeconds)
    }

    func prepare() { try? helper.start() }

    func verify(_ url: URL, chunk: ChunkRecord, job: JobRecord) throws {
        // Where the encoder's priming and flush may lie: in the timeline's first and last blocks.
        let (length, startsRender, endsRender): (Int64, Bool, Bool) =
            switch chunk.work {
            case .video(let chunk): (chunk.frameCount, false, false)
            case .audio(let block), .loudness(let block):
                (block.sampleCount, block.start == job.samples.lowerBound, block.end == job.samples.upperBound)
            }
        let request = SegmentVerifier.Request(
            path: url.path, kind: chunk.kind, length: length, fps: job.fps, sampleRate: job.sampleRate,
            startsRender: startsRender, endsRender: endsRender)
        let answer: String
        do {
            answer = try helper.ask(json: request)
        } catch let failure as HelperProcess.Failure {
            throw SegmentVerifier.Failure(description: "the verifier \(failure.reason) reading the segment")
        } catch {
            throw SegmentCheckUnavailable(description: "the segment verifier: \(error)")
        }
        guard let verdict = SegmentVerifier.Verdict(line: answer) else {
            throw SegmentCheckUnavailable(description: "the segment verifier answered \"\(answer.prefix(100))\"")
        }
        if !verdict.ok { throw SegmentVerifier.Failure(description: verdict.reason ?? "") }
    }
}
