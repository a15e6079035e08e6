import FarmCore
import FarmMedia
import Foundation
import TestSupport
import Testing

/// Probe results kept by file stamp: a file probed before is not opened again while it is the
/// same version, and is probed afresh once it is another, however it was changed.
@Suite struct ProbeCacheTests {
    final class Counter: @unchecked Sendable {
        let calls = Locked(0)
    }

    static func probe(counting counter: Counter) -> @Sendable (String) throws -> MediaInfo {
        { path in
            counter.calls.withLock { $0 += 1 }
            return try MediaProbe.probe(path: path)
        }
    }

    @Test func aFileIsProbedOnceWhileItsStampHolds() throws {
        try withTemporaryDirectory { dir in
            try TestMedia.make("a.mp4", in: dir, video: "testsrc2=size=64x48:rate=30:duration=1")
            let path = dir.appendingPathComponent("a.mp4").path
            let counter = Counter()
            let probe = ProbeCache(folder: dir.appendingPathComponent("probes")).probing(
                with: Self.probe(counting: counter))
            let first = try probe(path)
            // Another command with a cache over the same folder finds it too.
            let again = try ProbeCache(folder: dir.appendingPathComponent("probes"))
                .probing(with: Self.probe(counting: counter))(path)
            #expect(again == first)
            #expect(counter.calls.current == 1)
        }
    }

    @Test(arguments: ["rewritten in place with its old size and mtime", "replaced by a rename"])
    func aChangedFileIsProbedAgain(_ how: String) throws {
        try withTemporaryDirectory { dir in
            try TestMedia.make("a.mp4", in: dir, video: "testsrc2=size=64x48:rate=30:duration=1")
            try TestMedia.make("b.mp4", in: dir, video: "testsrc2=size=96x48:rate=30:duration=1")
            let path = dir.appendingPathComponent("a.mp4").path
            let counter = Counter()
            let probe = ProbeCache(folder: dir.appendingPathComponent("probes")).probing(
                with: Self.probe(counting: counter))
            #expect(try probe(path).width == 64)
            let old = try #require(FileStamp(path: path))
            if how.hasPrefix("rewritten") {
                // Same bytes count, same mtime: only the ctime tells.
                let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
                try FileHandle(forWritingAtPath: path).map { handle in
                    try handle.write(contentsOf: bytes)
                    try handle.close()
                }
                var times = [
                    timespec(tv_sec: Int(old.modified / 1_000_000_000), tv_nsec: Int(old.modified % 1_000_000_000)),
                    timespec(tv_sec: Int(old.modified / 1_000_000_000), tv_nsec: Int(old.modified % 1_000_000_000)),
                ]
                #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
                let now = try #require(FileStamp(path: path))
                #expect(now.size == old.size && now.modified == old.modified && now.inode == old.inode)
                #expect(try probe(path).width == 64)
            } else {
                #expect(rename(dir.appendingPathComponent("b.mp4").path, path) == 0)
                #expect(try probe(path).width == 96)
            }
            #expect(counter.calls.current == 2)
        }
    }
}
