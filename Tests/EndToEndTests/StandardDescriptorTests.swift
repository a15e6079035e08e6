import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct StandardDescriptorTests {
    /// Started with standard input, output and error closed (as some supervisors and CI runners
    /// start programs), `farm` must not let its progress lines land in the first file it opens.
    @Test func renderWithClosedStandardDescriptorsWritesACleanFile() throws {
        try withTemporaryDirectory { dir in
            let project = try FarmTests.seamProject(in: dir)
            let reference = dir.appendingPathComponent("reference.mov")
            try FarmTests.farm(["render", project.path, "-o", reference.path, "--local"])
            let output = dir.appendingPathComponent("closed.mov")

            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            for descriptor: Int32 in 0...2 { posix_spawn_file_actions_addclose(&actions, descriptor) }
            let argv = [farmProgram, "render", project.path, "-o", output.path, "--local"]
            let cArguments = argv.map { strdup($0) } + [nil]
            defer { for argument in cArguments { free(argument) } }
            var pid: pid_t = 0
            #expect(posix_spawn(&pid, argv[0], &actions, nil, cArguments, environ) == 0)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}

            #expect(status == 0, "farm render exited with wait status \(status)")
            #expect(try frameHashes(output) == frameHashes(reference))
            #expect(try audioHash(output) == audioHash(reference))
        }
    }
}
