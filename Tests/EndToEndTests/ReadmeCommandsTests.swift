import FarmCore
import FarmStore
import Foundation
import TestSupport
import Testing

/// The README's commands for a farm on many machines, run as written: only the hosts, the
/// database URL and the folders on other machines are this test's own. Its key paths must work
/// as they stand (they once generated keys into keys/workers/ and started the worker with
/// render-01.key; then generated the worker's secret key into the coordinator's allowed folder).
@Suite struct ReadmeCommandsTests {
    /// The commands of the README's block after `marker`, continuation lines joined and comments
    /// dropped, each split into words.
    static func commands(after marker: String) throws -> [[String]] {
        let readme = try String(
            contentsOf: DashboardBrowserTests.repository.appendingPathComponent("README.md"), encoding: .utf8)
        let after = try #require(readme.components(separatedBy: marker).dropFirst().first)
        let block = try #require(
            after.components(separatedBy: "```sh\n").dropFirst().first?
                .components(separatedBy: "```").first)
        let joined = block.replacingOccurrences(of: "\\\n", with: " ")
        return joined.split(separator: "\n").flatMap { line in
            let command = line.components(separatedBy: "  #").first ?? String(line)
            return command.split(separator: ";").map { $0.split(separator: " ").map(String.init) }
        }.filter { !$0.isEmpty }
    }

    @Test func theManyMachinesCommandsRenderAJobWithKeys() throws {
        try withTemporaryDirectory { dir in
            // The README's output is an MP4: AAC, not the seam project's PCM.
            let project = try FarmTests.seamProject(in: dir)
            let text = try String(contentsOf: project, encoding: .utf8)
                .replacingOccurrences(of: #""container": "mov""#, with: #""container": "mp4""#)
                .replacingOccurrences(of: #""codec": "pcm""#, with: #""codec": "aac""#)
            try Data(text.utf8).write(to: project)
            let farm = try TestFarm(directory: dir)
            defer { farm.stopAll() }
            let output = dir.appendingPathComponent("out")
            try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
            func local(_ word: String) -> String {
                let places = [
                    ("postgresql://farm@db/farm", farm.database), ("tcp://*:5555", farm.endpoint),
                    ("tcp://coordinator:5555", farm.endpoint), ("/srv/farm", farm.dataDirectory.path),
                    ("/srv/out", output.path), ("/mnt/media", dir.path), ("project.json", project.path),
                ]
                for (written, here) in places where word.hasPrefix(written) {
                    return here + word.dropFirst(written.count)
                }
                // Paths relative to the folder the commands run in.
                return word.hasPrefix("keys/") ? dir.appendingPathComponent(word).path : word
            }
            let commands = try Self.commands(after: "On many machines:").map { words in
                // `--dir keys`: the folder the keys go to, relative too.
                words.indices.map {
                    $0 > 0 && words[$0 - 1] == "--dir" ? dir.appendingPathComponent(words[$0]).path : local(words[$0])
                }
            }
            // Each worker's key pair in a folder of its own, and only its public key copied to the
            // coordinator's allowed folder: never a secret key where the coordinator reads.
            #expect(
                commands.map { $0[0] == "farm" ? $0.prefix(2).joined(separator: " ") : $0[0] } == [
                    "farm keys", "farm keys", "mkdir", "cp", "farm serve", "farm-worker", "farm submit",
                ])
            var job: Int64?
            for command in commands {
                let arguments = Array(command.dropFirst())
                switch command[0] {
                case "farm" where arguments.first == "serve":
                    farm.coordinator = try FarmProcess(
                        "farm", arguments, log: dir.appendingPathComponent("coordinator.log"))
                case "farm-worker":
                    farm.workers.append(
                        try FarmProcess("farm-worker", arguments, log: dir.appendingPathComponent("worker.log")))
                    try farm.wait("the worker to join with its key") {
                        try farm.store.workerStatuses().contains { $0.id.hasPrefix("render-01@") }
                    }
                case "mkdir", "cp":
                    let result = try run(command[0], arguments)
                    #expect(result.status == 0, "\(command.joined(separator: " ")): \(result.stderr)")
                default:
                    let result = try runFarm(arguments)
                    #expect(result.status == 0, "\(command.joined(separator: " ")): \(result.stderr)")
                    if arguments.first == "submit" {
                        job = Int64(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
                    }
                }
            }
            let allowed = try FileManager.default.contentsOfDirectory(
                atPath: dir.appendingPathComponent("keys/workers").path)
            #expect(allowed == ["render-01.pub"], "the allowed folder holds public keys only: \(allowed)")
            let id = try #require(job)
            #expect(try farm.finish(id).state == .done, "\(farm.logs)")
            #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent("final.mp4").path))
        }
    }
}
