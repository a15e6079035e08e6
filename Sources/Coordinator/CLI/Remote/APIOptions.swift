import ArgumentParser
import Foundation

/// Where a farm's HTTP API is and the token to call it with, for the commands that talk to it
/// alone (`farm upload`, `farm fetch`, `farm submit --api`).
struct APIOptions: ParsableArguments {
    @Option(
        name: .customLong("api"),
        help: ArgumentHelp(
            "The farm's HTTP API (farm serve --http), e.g. http://farm:8080 (default: $FARM_API).", valueName: "URL"))
    var url: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "A token of the API (farm tokens create NAME --role submit) (default: $FARM_TOKEN).", valueName: "TOKEN"))
    var token: String?

    func client() throws -> APIClient {
        let environment = ProcessInfo.processInfo.environment
        guard let text = url ?? environment["FARM_API"] else {
            throw ValidationError("give the farm's API with --api URL or $FARM_API")
        }
        guard let base = URL(string: text), base.scheme == "http" || base.scheme == "https", base.host != nil else {
            throw ValidationError("--api \(text): expected http://HOST:PORT or https://…")
        }
        guard let token = token ?? environment["FARM_TOKEN"], !token.isEmpty else {
            throw ValidationError("give a token with --token or $FARM_TOKEN (farm tokens create NAME --role submit)")
        }
        return APIClient(base: base, token: token)
    }
}
