import FarmCore
import Foundation
import Testing

@Suite struct HelperProcessTests {
    /// `start` runs the child before any request, once however often it is called, and the
    /// first request goes to that child.
    @Test func aStartedHelperRunsBeforeItsFirstRequestAndOnlyOnce() throws {
        let marker = FileManager.default.temporaryDirectory.appendingPathComponent("helper-start-\(UUID())")
        defer { try? FileManager.default.removeItem(at: marker) }
        // Notes each start, then echoes lines.
        let helper = HelperProcess(["/bin/sh", "-c", "echo started >> '\(marker.path)'; exec cat"], timeoutSeconds: 60)
        defer { helper.stop() }
        try helper.start()
        try helper.start()
        var starts = ""
        for _ in 0..<500 {
            starts = (try? String(contentsOf: marker, encoding: .utf8)) ?? ""
            if !starts.isEmpty { break }
            Thread.sleep(forTimeInterval: 0.01)
        }
        #expect(starts == "started\n")
        #expect(try helper.ask("hello") == "hello")
        #expect(try String(contentsOf: marker, encoding: .utf8) == "started\n")
    }
}
