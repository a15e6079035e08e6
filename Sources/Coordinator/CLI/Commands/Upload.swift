import ArgumentParser
import FarmCore
import Foundation

struct Upload: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Send media files to a farm's media root over its HTTP API.",
        discussion: """
            Each file goes to PUT /api/media/{sha256} in pieces of 8 MiB, named by its SHA-256: \
            the farm keeps it as uploads/sha256/HEX in its media root (and as uploads/NAME, the \
            file's name) once every byte is in and the digest matches. Bytes the farm holds \
            already are not sent again: run the command again after a cut connection and it goes \
            on where it stopped; a file the farm has is not sent at all. Prints, per file, the \
            asset paths a project submitted over HTTP names it by.

            Exit codes: 0 all sent, 1 a file was refused or the farm could not be reached, 64 a \
            wrong command line.

            Examples:
              farm upload clip.mp4 music.wav talk.srt --api http://farm:8080 --token farm_…
              FARM_API=http://farm:8080 FARM_TOKEN=farm_… farm upload media/*.mov
            """)

    @Argument(help: "The files to send.")
    var files: [String]

    @OptionGroup var api: APIOptions

    func run() throws {
        let client = try api.client()
        var failed = false
        for file in files {
            let url = URL(fileURLWithPath: file)
            do {
                let kept = try MediaUpload.send(url, name: url.lastPathComponent, with: client)
                let named = kept.namePath.map { " or \($0)" } ?? ""
                let sent = kept.sent == 0 ? "the farm had it" : "\(Format.bytes(Int(kept.sent))) sent"
                print("\(file): \(kept.path)\(named) (\(Format.bytes(Int(kept.size))), \(sent))")
            } catch {
                failed = true
                FarmExit.printError("\(file): \(error)")
            }
        }
        if failed { throw FarmExit.failed }
    }
}
