import Foundation
import TestSupport
import Testing

/// ops/check-routes.py: docs/openapi.yaml lists exactly the routes the server registers (as
/// `farm http-routes` prints them from the router `farm serve --http` builds), and a route
/// either side lacks is named.
@Suite struct OpenAPIRoutesTests {
    static let repository = DashboardBrowserTests.repository
    static let script = repository.appendingPathComponent("ops/check-routes.py").path

    @Test func theOpenAPIFileListsExactlyTheServedRoutes() throws {
        let result = try run("/usr/bin/python3", [Self.script, "--farm", farmProgram])
        #expect(result.status == 0, "\(result.stderr)")
        // As many routes as the file has operations (a method's key, four spaces in, under a path).
        let yaml = try String(
            contentsOf: Self.repository.appendingPathComponent("docs/openapi.yaml"), encoding: .utf8)
        let operations = yaml.split(separator: "\n").filter { line in
            ["get", "post", "put", "delete", "patch"].contains { line == "    \($0):" }
        }.count
        #expect(operations > 25)
        #expect(result.stdout == "check-routes: docs/openapi.yaml and the server agree on \(operations) routes\n")
    }

    @Test func aRouteEitherSideLacksIsNamed() throws {
        try withTemporaryDirectory { dir in
            let original = try String(
                contentsOf: Self.repository.appendingPathComponent("docs/openapi.yaml"), encoding: .utf8)
            let drifted = original.replacingOccurrences(of: "\n  /api/farm:\n", with: "\n  /api/farms:\n")
            #expect(drifted != original)
            let file = dir.appendingPathComponent("openapi.yaml")
            try drifted.write(to: file, atomically: true, encoding: .utf8)
            let result = try run("/usr/bin/python3", [Self.script, "--farm", farmProgram, "--openapi", file.path])
            #expect(result.status == 1)
            #expect(
                result.stderr == """
                    check-routes: GET /api/farm is served but not in \(file.path)
                    check-routes: GET /api/farms is in \(file.path) but not served

                    """)
        }
    }
}
