import FarmCore
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Mistakes and failures an operator meets get one clear line and their documented exit code,
/// never a crash.
struct CommandLineErrorTests {
    static let unreachable = "host=/tmp/farm-test-nowhere-\(getpid()) dbname=farm"

    /// Every command that talks to the farm, pointed at a database that is not there: exit 1
    /// and one line naming the database (it once crashed with a double free).
    @Test(arguments: [
        ["status"], ["status", "3"], ["watch", "3"], ["workers"], ["workers", "drain", "w1"], ["logs", "3"],
        ["cancel", "3"],
        ["pause", "3"], ["resume", "3"], ["priority", "3", "1"], ["retry", "3"],
    ])
    func unreachableDatabaseExitsOne(_ command: [String]) throws {
        let result = try runFarm(command + ["--database", Self.unreachable])
        #expect(result.status == 1, "farm \(command.joined(separator: " ")): \(result.status) \(result.stderr)")
        #expect(
            result.stderr.hasPrefix("farm: the farm's database: connect to host=/tmp/farm-test-nowhere-"),
            "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
    }

    @Test func submitToAnUnreachableDatabaseExitsOne() throws {
        try withTemporaryDirectory { dir in
            let project = try FarmTests.seamProject(in: dir)
            let result = try runFarm([
                "submit", project.path, "-o", dir.appendingPathComponent("out.mov").path, "--database",
                Self.unreachable,
            ])
            #expect(result.status == 1, "\(result.stderr)")
            #expect(result.stderr.hasPrefix("farm: the farm's database: connect to"), "\(result.stderr)")
        }
    }

    /// `farm submit` never replaces a file unless told to, and never writes through a link.
    @Test func submitRefusesAnExistingOutputOrALink() throws {
        try withTemporaryDirectory { dir in
            let project = try FarmTests.seamProject(in: dir)
            let existing = dir.appendingPathComponent("existing.mov")
            try Data("keep me".utf8).write(to: existing)
            let link = dir.appendingPathComponent("link.mov")
            try FileManager.default.createSymbolicLink(at: link, withDestinationURL: existing)
            for (output, extra, message) in [
                (existing, [String](), "existing.mov: exists; pass --overwrite to replace it"),
                (link, ["--overwrite"], "link.mov: is a symbolic link; the farm never writes through one"),
            ] {
                let result = try runFarm(
                    ["submit", project.path, "-o", output.path, "--database", Self.unreachable] + extra)
                #expect(result.status == 2, "\(result.stderr)")
                #expect(result.stderr.hasSuffix(message + "\n"), "\(result.stderr)")
            }
            #expect(try String(contentsOf: existing, encoding: .utf8) == "keep me")
            // With --overwrite the output check passes and the command goes on to the database.
            let allowed = try runFarm(
                ["submit", project.path, "-o", existing.path, "--overwrite", "--database", Self.unreachable])
            #expect(allowed.status == 1, "\(allowed.stderr)")
        }
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var program = "farm"
        var arguments: [String]
        var message: String
        var testDescription: String { "\(program) \(arguments.joined(separator: " "))" }
    }

    /// Values out of range are usage errors (64) naming the option, caught before any database
    /// or socket is touched.
    @Test(arguments: [
        Case(
            arguments: ["priority", "1", "99999999999"],
            message: "a priority must lie in -2147483648...2147483647 (got 99999999999)"),
        Case(
            arguments: ["submit", "p.json", "-o", "o.mp4", "--priority=-99999999999"], message: "a priority must lie in"
        ),
        Case(arguments: ["logs", "1", "--chunk=-1"], message: "--chunk must be a chunk index, 0 or more (got -1)"),
        Case(
            arguments: ["retry", "1", "--chunk", "9999999999"],
            message: "--chunk must be a chunk index, 0 or more (got 9999999999)"),
        Case(arguments: ["status", "--limit", "0"], message: "--limit must be >= 1 (got 0)"),
        Case(
            arguments: ["serve", "--bind", "garbage"],
            message: "--bind must be tcp://HOST:PORT or ipc://PATH (got garbage)"),
        Case(
            arguments: ["serve", "--notify-allow", "10.0.0.0/8,10.0.0.0/33"],
            message: "--notify-allow: \"10.0.0.0/33\" is not an address or network"),
        Case(arguments: ["serve", "--notify-allow", ""], message: "--notify-allow: give at least one network"),
        Case(
            arguments: ["serve", "--bind", "tcp://*:99999"],
            message: "--bind must be tcp://HOST:PORT with a port from 1 to 65535"),
        Case(
            arguments: ["serve", "--bind", "tcp://0.0.0.0:5555"],
            message: "--bind tcp://0.0.0.0:5555 without --key would let anyone who can reach it join as a worker"),
        Case(
            arguments: ["serve", "--bind", "tcp://10.1.2.3:5555"],
            message: "pass --insecure on a network you trust"),
        Case(
            program: "farm-worker", arguments: ["--coordinator", "render-01:5555"],
            message: "--coordinator must be tcp://HOST:PORT"),
    ])
    func outOfRangeValuesAreUsageErrors(_ testCase: Case) throws {
        let result = try run(productsDirectory.appendingPathComponent(testCase.program).path, testCase.arguments)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains(testCase.message), "\(result.stderr)")
    }
}
