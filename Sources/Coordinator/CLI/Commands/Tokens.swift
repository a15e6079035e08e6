import ArgumentParser
import FarmCore
import FarmHTTP
import FarmStore
import Foundation

struct Tokens: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Bearer tokens of the HTTP API (farm serve --http).",
        discussion: """
            A token is printed once, when created; the farm keeps only its SHA-256. Roles: read \
            (jobs, chunks, attempts, workers), submit (and queue jobs), operate (and cancel, pause, \
            resume, priority, retry, drain, prune).

            Examples:
              farm tokens create dashboard --role read
              curl -H "Authorization: Bearer $TOKEN" http://127.0.0.1:8080/api/jobs
              farm tokens list
              farm tokens revoke dashboard
            """,
        subcommands: [Create.self, List.self, Revoke.self, NotifySecret.self]
    )

    struct NotifySecret: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the farm's secret that signs job notifications (farm submit --notify).",
            discussion: """
                A receiver checks each notice: X-Farm-Signature is "sha256=" and the hex \
                HMAC-SHA256 of the request's exact body under this secret. The farm made it when \
                its database was set up; every coordinator of the farm signs with it.

                Example (Python): hmac.compare_digest(header, "sha256=" + hmac.new(secret, body, \
                hashlib.sha256).hexdigest())
                """)

        @OptionGroup(title: "Farm state") var database: DatabaseOptions

        func run() throws {
            print(try database.withFarm { try $0.notifySecret() })
        }
    }

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a token and print it (once).")

        @Argument(help: "A name to list and revoke it by.")
        var name: String

        @Option(name: .long, help: "read, submit or operate.")
        var role: TokenRole

        @OptionGroup(title: "Farm state") var database: DatabaseOptions

        func run() throws {
            let token = APIToken.generate()
            try database.withFarm { try $0.createToken(name: name, role: role, digest: APIToken.digest(of: token)) }
            print(token)
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Every token: name, role, created, last used.")

        @Flag(name: .long, help: "Print JSON.")
        var json = false

        @OptionGroup(title: "Farm state") var database: DatabaseOptions

        func run() throws {
            let tokens = try database.withFarm { try $0.tokens() }
            if json { return try JSONOutput.print(tokens) }
            guard !tokens.isEmpty else { return print("no tokens (farm tokens create NAME --role read)") }
            var table = TextTable(["NAME", "ROLE", "CREATED", "LAST USED"])
            for token in tokens {
                table.add([token.name, token.role.rawValue, token.createdAt, token.lastUsedAt ?? "-"])
            }
            print(table.text)
        }
    }

    struct Revoke: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a token: it answers 401 from now on.")

        @Argument(help: "The token's name.")
        var name: String

        @OptionGroup(title: "Farm state") var database: DatabaseOptions

        func run() throws {
            guard try database.withFarm({ try $0.revokeToken(name: name) }) else {
                FarmExit.printError("no token named \(name) (farm tokens list)")
                throw FarmExit.notFound
            }
            print("token \(name) revoked")
        }
    }
}

extension TokenRole: ExpressibleByArgument {}
