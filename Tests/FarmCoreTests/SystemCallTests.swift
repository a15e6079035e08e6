import FarmCore
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The one funnel for system calls: interrupted calls are made again, failures name the call
/// and the path.
@Suite struct SystemCallTests {
    @Test func anInterruptedCallIsMadeAgain() throws {
        var calls = 0
        let result = try SystemCall.retrying("read", path: "/x") { () -> Int in
            calls += 1
            guard calls > 2 else {
                errno = EINTR
                return -1
            }
            return 7
        }
        #expect(result == 7)
        #expect(calls == 3)
    }

    @Test func aFailureNamesTheCallAndThePath() {
        let path = "/nonexistent-\(getpid())/file"
        let error = #expect(throws: SystemCallError.self) {
            try SystemCall.retrying("open", path: path) { open(path, O_RDONLY) }
        }
        #expect(error == SystemCallError(call: "open", path: path, code: ENOENT))
        #expect(error?.description == "open \(path): No such file or directory")
    }

    @Test func aFullDiskIsNoSpace() throws {
        let descriptor = try SystemCall.retrying("open", path: "/dev/full") { open("/dev/full", O_WRONLY) }
        defer { close(descriptor) }
        let error = #expect(throws: SystemCallError.self) {
            try [UInt8](repeating: 1, count: 4096).withUnsafeBytes { bytes in
                try SystemCall.write(descriptor, bytes, at: 0, path: "/dev/full")
            }
        }
        #expect(error?.isNoSpace == true)
        #expect(error?.description == "pwrite /dev/full: No space left on device")
    }

    @Test func aReadStopsOnlyAtTheEndOfTheFile() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("systemcall-\(UUID().uuidString)")
        try Data((0..<100).map { UInt8($0) }).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let descriptor = try SystemCall.retrying("open", path: url.path) { open(url.path, O_RDONLY) }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 64)
        let read = try buffer.withUnsafeMutableBytes { buffer in
            try SystemCall.read(descriptor, into: buffer, count: 64, at: 60, path: url.path)
        }
        #expect(read == 40)
        #expect(Array(buffer[..<40]) == (60..<100).map { UInt8($0) })
    }
}
