import ArgumentParser
import FarmCore
import FarmRender
import FarmStore
import Foundation

struct Retry: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Render a failed or cancelled job's unfinished chunks again, or one chunk of any job.",
        discussion: """
            Without --chunk: the job goes back to the queue and each of its unfinished chunks gets \
            three fresh tries; accepted chunks are kept. With --chunk N: that video chunk is \
            rendered again (say, after fixing a source file) and the output is joined anew. This \
            needs the job's accepted segments, which `farm serve` keeps in DATA/jobs/ID; chunks \
            whose segments are gone are rendered again too. A paused job stays paused until \
            `farm resume`.

            A source file that changed since the job was pinned (say, put back from a backup) is \
            pinned again as it is now; renders must then read the same bytes as the accepted \
            chunks wherever both read, or the job fails again.

            Exit codes: 0 queued, 1 farm unreachable, 3 no such job or chunk, 5 nothing to retry (the \
            job is done or still running, or the chunk is rendering now), 64 a wrong command line.

            Examples:
              farm retry 12
              farm retry 12 --chunk 7
            """
    )

    @Argument(help: "The job.")
    var job: Int64

    @Option(name: .long, help: "Render only this video chunk again (its index, as `farm status JOB` shows).")
    var chunk: Int?

    @OptionGroup(title: "Farm state") var database: DatabaseOptions

    func validate() throws {
        try StoredIntegers.checkChunk(chunk)
    }

    func run() throws {
        let (record, repinned) = try database.withFarm { store -> (JobRecord, [String]) in
            let media = try stamps(in: store)
            if let chunk {
                let retried = try store.retry(job: job, chunk: chunk, media: media)
                print("job \(job): chunk \(chunk) queued again; the output is joined once it is accepted")
                return retried
            }
            let retried = try store.retry(job: job, media: media)
            print("job \(job) queued again: \(retried.chunks) chunk(s) to render")
            return (retried.job, retried.repinned)
        }
        for asset in repinned {
            print(
                "assets.\(asset): changed since the job was pinned; pinned as it is now "
                    + "(renders must read what the accepted chunks read wherever both read)")
        }
        // A retry does not undo a pause: the operator may have paused it for a reason.
        if record.paused { print("job \(job) is paused: nothing is rendered until `farm resume \(job)`") }
    }

    /// Each asset's stamp as its file is now, found as the job's workers find it.
    private func stamps(in store: FarmStore) throws -> [String: FileStamp] {
        guard let source = try store.projectOf(job: job) else { return [:] }
        return ProjectLoader.currentStamps(text: source.text, file: source.file, mediaRoot: source.mediaRoot)
    }
}
