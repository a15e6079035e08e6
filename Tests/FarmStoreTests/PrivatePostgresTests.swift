import FarmPostgres
import FarmStore
import Foundation
import TestSupport
import Testing

/// The private server's start and stop, which watch `postmaster.pid` rather than wait for
/// `pg_ctl`'s 100 ms polls: a server is used only once it answers, is stopped only by whoever
/// started it, and is gone (file and process) when `stop` returns.
@Suite struct PrivatePostgresTests {
    @Test func aStartedServerAnswersAndIsGoneOnceStopped() throws {
        try withTemporaryDirectory { dir in
            let folder = dir.appendingPathComponent("pg")
            let server = try PrivatePostgres(directory: folder)
            try server.start()
            let running = try #require(PostmasterFile.read(in: folder))
            #expect(running.status == "ready")
            #expect(running.isAlive)
            #expect(try PostgresConnection(url: server.connectionString).query("SELECT 1").count == 1)

            // A second user of the folder shares the server and leaves it running.
            let other = try PrivatePostgres(directory: folder)
            try other.start()
            #expect(try PostgresConnection(url: other.connectionString).query("SELECT 1").count == 1)
            other.stop()
            #expect(PostmasterFile.read(in: folder)?.pid == running.pid)
            #expect(running.isAlive)

            server.stop()
            #expect(PostmasterFile.read(in: folder) == nil)
            #expect(!running.isAlive)
            #expect(throws: PostgresError.self) { try PostgresConnection(url: server.connectionString) }

            // And it starts again in the same folder.
            try server.start()
            defer { server.stop() }
            #expect(try PostgresConnection(url: server.connectionString).query("SELECT 1").count == 1)
        }
    }

    /// A new folder's cluster is a copy of the machine's template (made by the first start that
    /// needed it): two new folders hold the same cluster, system identifier and all, each a
    /// server of its own that starts and answers, with the farm's schema in place and a farm
    /// identity and webhook secret of its own.
    @Test func aNewFolderStartsAsACopyOfTheMachinesTemplate() throws {
        try withTemporaryDirectory { dir in
            var identifiers: [String] = []
            var drawn: [String] = []
            for name in ["first", "second"] {
                let server = try PrivatePostgres(directory: dir.appendingPathComponent(name))
                try server.start()
                defer { server.stop() }
                let rows = try PostgresConnection(url: server.connectionString).query(
                    "SELECT system_identifier::text AS id FROM pg_control_system()")
                identifiers.append(try #require(rows.first).decode("id", as: String.self))
                let connection = try PostgresConnection(url: server.connectionString)
                #expect(try Migrations.apply(on: connection).isEmpty, "a step was left to take")
                let own = try connection.query(
                    """
                    SELECT (SELECT id FROM farm_identity) || ' '
                           || (SELECT string_agg(value, ' ' ORDER BY name) FROM farm_secrets) AS own
                    """)
                drawn.append(try #require(own.first).decode("own", as: String.self))
                let mark = dir.appendingPathComponent(name).appendingPathComponent(PrivatePostgres.copyMark)
                #expect(!FileManager.default.fileExists(atPath: mark.path))
            }
            #expect(identifiers[0] == identifiers[1], "\(identifiers)")
            // But each draws its own farm identity, webhook secret and link secret.
            let first = drawn[0].split(separator: " ")
            let second = drawn[1].split(separator: " ")
            #expect(first.count == 3 && second.count == 3, "\(drawn)")
            #expect(zip(first, second).allSatisfy { $0 != $1 }, "\(drawn)")
            // Nothing of the copy is left beside the folder.
            let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
            #expect(left == ["first", "second"], "\(left)")
        }
    }

    @Test func aPidFileIsReadAsPostgreSQLWritesIt() throws {
        try withTemporaryDirectory { dir in
            let text = "\(getpid())\n/data\n1700000000\n5432\n/tmp\n\n  5432001         0\nready   \n"
            try text.write(to: dir.appendingPathComponent("postmaster.pid"), atomically: true, encoding: .utf8)
            #expect(PostmasterFile.read(in: dir) == PostmasterFile(pid: getpid(), status: "ready"))
            #expect(PostmasterFile.read(in: dir)?.isAlive == true)
            try "12\n".write(to: dir.appendingPathComponent("postmaster.pid"), atomically: true, encoding: .utf8)
            #expect(PostmasterFile.read(in: dir) == PostmasterFile(pid: 12, status: nil))
            try "".write(to: dir.appendingPathComponent("postmaster.pid"), atomically: true, encoding: .utf8)
            #expect(PostmasterFile.read(in: dir) == nil)
        }
    }

    @Test func aProcessThatEndedButWasNotReapedCountsAsGone() throws {
        // A child that has exited and is not waited for yet is a zombie, as a postmaster is
        // until whoever adopted it reaps it.
        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/true"), nil]
        defer { for argument in argv { free(argument) } }
        #expect(posix_spawn(&pid, "/bin/true", nil, nil, argv, nil) == 0)
        let file = PostmasterFile(pid: pid, status: "ready")
        let deadline = Date().addingTimeInterval(10)
        while file.isAlive && Date() < deadline { usleep(1000) }
        #expect(!file.isAlive)
        #expect(kill(pid, 0) == 0, "still a zombie: not reaped yet")
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }
}
