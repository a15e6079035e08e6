import FarmCore
import FarmRender

/// Settles the blocks a render read from copies of pinned media that no reader of the pinned
/// version has recorded yet (`CopyCheck`), against the files the job was submitted with as the
/// coordinator sees them (`PinnedOriginals`). Used only on the verifier's thread.
final class CopySettler {
    /// What the coordinator knows of a job's media, read on the loop's thread.
    struct Job: Sendable {
        var id: Int64
        var projectText: String
        var projectFile: String
        var mediaRoot: String
        var pins: [String: MediaPin]
    }

    /// The asset paths of the last job settled: consecutive results are mostly one job's.
    private var paths: (job: Int64, paths: [String: String])?

    func settle(_ blocks: [MediaReads.Block], of job: Job) -> CopyCheck.Verdict {
        let known =
            paths?.job == job.id
            ? paths!.paths
            : ProjectLoader.assetPaths(text: job.projectText, file: job.projectFile, mediaRoot: job.mediaRoot)
        paths = (job.id, known)
        return CopyCheck.settle(blocks, reader: PinnedOriginals(paths: known, pins: job.pins))
    }
}
