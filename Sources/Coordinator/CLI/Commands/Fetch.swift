import ArgumentParser
import FarmCore
import Foundation

struct Fetch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Download a done job's output over a farm's HTTP API.",
        discussion: """
            Reads GET /api/jobs/{id}/output by byte ranges of 8 MiB into OUT.part, which a cut \
            download leaves behind: the command run again goes on from its end. OUT appears only \
            once every byte is in (renamed from OUT.part).

            Exit codes: 0 written, 1 the farm could not be reached or the output is not there \
            (the job is not done, or its file was removed), 3 no such job, 64 a wrong command line.

            Examples:
              farm fetch 12 -o final.mp4 --api http://farm:8080 --token farm_…
            """)

    @Argument(help: "The job's id.")
    var job: Int64

    @Option(name: [.short, .long], help: "The file to write.")
    var output: String

    @OptionGroup var api: APIOptions

    func run() throws {
        let client = try api.client()
        let target = URL(fileURLWithPath: output)
        let part = URL(fileURLWithPath: output + ".part")
        if !FileManager.default.fileExists(atPath: part.path) {
            guard FileManager.default.createFile(atPath: part.path, contents: nil) else {
                FarmExit.printError("\(part.path): cannot be written")
                throw FarmExit.failed
            }
        }
        do {
            let handle = try FileHandle(forWritingTo: part)
            defer { try? handle.close() }
            var have = Int64(try handle.seekToEnd())
            while true {
                let answer = try client.call(
                    "GET", "/api/jobs/\(job)/output",
                    headers: ["Range": "bytes=\(have)-\(have + Int64(MediaUpload.piece) - 1)"])
                try handle.write(contentsOf: answer.body)
                have += Int64(answer.body.count)
                let total = answer.rangeTotal ?? have
                if have >= total || answer.body.isEmpty { break }
            }
        } catch let failure as APIClient.Failure where failure.status == 416 {
            // The .part holds at least as many bytes as the file: whole only if exactly as many
            // (a .part of another file or render is started again).
            let total = try? client.call("GET", "/api/jobs/\(job)/output", headers: ["Range": "bytes=0-0"]).rangeTotal
            let have = (try? FileManager.default.attributesOfItem(atPath: part.path)[.size] as? NSNumber)?.int64Value
            if total == nil || total != have {
                try? FileManager.default.removeItem(at: part)
                FarmExit.printError("\(part.path) was not this output's beginning; removed: run the command again")
                throw FarmExit.failed
            }
        } catch let failure as APIClient.Failure {
            FarmExit.printError("job \(job): \(failure)")
            throw failure.status == 404 ? FarmExit.notFound : FarmExit.failed
        }
        _ = try? FileManager.default.removeItem(at: target)
        try FileManager.default.moveItem(at: part, to: target)
        let size = (try? FileManager.default.attributesOfItem(atPath: target.path)[.size] as? Int) ?? 0
        print("\(target.path): \(Format.bytes(size)) from job \(job)")
    }
}
