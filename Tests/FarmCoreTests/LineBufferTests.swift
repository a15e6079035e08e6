import FarmCore
import Foundation
import Testing

/// A helper child's answer is read a line at a time, in linear time however long the line.
@Suite struct LineBufferTests {
    @Test func aLongLineArrivingInPiecesIsSearchedOnce() {
        var buffer = LineBuffer()
        let line = [UInt8](repeating: UInt8(ascii: "a"), count: 10 << 20) + [UInt8(ascii: "\n")]
        var answer: [UInt8]?
        // As a pipe delivers it: 4 KiB per read, and a look for the newline after each.
        for start in stride(from: 0, to: line.count, by: 4096) {
            buffer.append(line[start..<min(start + 4096, line.count)])
            if let complete = buffer.nextLine() { answer = complete }
        }
        #expect(answer?.count == 10 << 20)
        #expect(buffer.isEmpty)
        #expect(buffer.examined == line.count, "each byte is looked at once")
    }

    @Test func linesComeOutInOrderAndAPartOneWaits() {
        var buffer = LineBuffer()
        buffer.append(ArraySlice(Array("one\ntwo\nthr".utf8)))
        #expect(buffer.nextLine().map { String(decoding: $0, as: UTF8.self) } == "one")
        #expect(buffer.nextLine().map { String(decoding: $0, as: UTF8.self) } == "two")
        #expect(buffer.nextLine() == nil)
        buffer.append(ArraySlice(Array("ee\n".utf8)))
        #expect(buffer.nextLine().map { String(decoding: $0, as: UTF8.self) } == "three")
        #expect(buffer.isEmpty)
    }

    /// A child that reads each line whole, then echoes it, as the probe does: a 10 MB answer
    /// comes back intact.
    @Test func aHelperReturnsATenMegabyteAnswer() throws {
        let echo = "import sys\nfor line in sys.stdin:\n    sys.stdout.write(line)\n    sys.stdout.flush()"
        let helper = HelperProcess(["/usr/bin/env", "python3", "-c", echo], timeoutSeconds: 60)
        defer { helper.stop() }
        let request = String(repeating: "é", count: 5 << 20)
        #expect(try helper.ask(request) == request)
        #expect(try helper.ask("short") == "short")
    }
}
