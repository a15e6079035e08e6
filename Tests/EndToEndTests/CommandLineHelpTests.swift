import FarmCore
import FarmStore
import Foundation
import TestSupport
import Testing

/// `--help` teaches: every command shows at least one example; completion scripts come from
/// the argument parser and know every subcommand.
struct CommandLineHelpTests {
    static let commands = [
        ["render"], ["validate"], ["submit"], ["serve"], ["status"], ["watch"], ["workers"], ["workers", "list"],
        ["workers", "drain"], ["workers", "undrain"], ["logs"], ["cancel"], ["pause"], ["resume"], ["priority"],
        ["retry"],
    ]

    @Test(arguments: commands) func helpHasAnExample(_ command: [String]) throws {
        let result = try runFarm(command + ["--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("Example"), "farm \(command.joined(separator: " ")) --help has no example")
        // Every example names the command it is under.
        #expect(result.stdout.contains("  farm \(command.last == "list" ? "workers" : command.joined(separator: " "))"))
    }

    /// Defaults read as an operator writes them, and no chore left to do by hand.
    @Test func serveHelpShowsSizesAsWrittenAndNamesPrune() throws {
        let help = try runFarm(["serve", "--help"]).stdout
        #expect(help.contains("(default: 20G)"), "\(help)")
        #expect(help.contains("`farm prune` removes finished jobs'"), "\(help)")
    }

    @Test(arguments: ["bash", "zsh", "fish"]) func completionKnowsEverySubcommand(_ shell: String) throws {
        let result = try runFarm(["--generate-completion-script", shell])
        #expect(result.status == 0)
        for command in [
            "render", "status", "watch", "workers", "drain", "logs", "cancel", "pause", "resume", "priority", "retry",
        ] {
            #expect(result.stdout.contains(command), "\(shell) completion lacks \(command)")
        }
        #expect(result.stdout.contains("chunk-seconds"))
    }

    @Test func throughputFollowsTheWindowAndFallsBackUntilItIsLongEnough() {
        var throughput = Throughput(window: 10, minimumSpan: 3)
        throughput.add(time: 0, frames: 0)
        throughput.add(time: 2, frames: 100)
        #expect(throughput.rate == nil)
        #expect(throughput.secondsLeft(total: 1000, overall: 50) == 18)
        throughput.add(time: 4, frames: 200)
        #expect(throughput.rate == 50)
        #expect(throughput.secondsLeft(total: 1000, overall: 1) == 16)
        // Twice as many workers: the window forgets the old pace.
        for second in 5...16 { throughput.add(time: Double(second), frames: 200 + Int64(second - 4) * 100) }
        #expect(throughput.rate == 100)
        // A lost worker's partial chunk takes frames back: start measuring again.
        throughput.add(time: 17, frames: 1000)
        #expect(throughput.rate == nil)
        #expect(throughput.secondsLeft(total: 1000, overall: nil) == nil)
    }
}

extension CommandLineHelpTests {
    /// `--version` names what a render node runs: the farm's version, the commit it was built
    /// from (`unknown` for a working tree; the package writes it) and the FFmpeg libraries
    /// loaded, which decide the bytes it encodes.
    @Test(arguments: ["farm", "farm-worker"]) func versionNamesTheCommitAndTheFFmpegLibraries(_ program: String) throws
    {
        let result = try run(productsDirectory.appendingPathComponent(program).path, ["--version"])
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "\(FarmVersion.current) (commit \(BuildInfo.commit))", "\(result.stdout)")
        let libraries = try #require(lines.dropFirst().first)
        for library in ["libavformat", "libavcodec", "libavutil", "libswscale", "libswresample"] {
            #expect(libraries.range(of: "\(library) [0-9]+\\.[0-9]+\\.[0-9]+", options: .regularExpression) != nil)
        }
    }
}
