import FarmCore
import FarmMedia
import Foundation
import TestSupport
import Testing

/// Pins tell one version of a file from another, by size or, at the same size, by content,
/// and each version is hashed once.
@Suite struct MediaPinningTests {
    /// A pinning that counts how often it had to hash a file.
    final class CountingPinning {
        var digests: [String: (FileStamp, String)] = [:]
        var hashed = 0

        var pinning: MediaPinning {
            MediaPinning(
                lookup: { path, stamp in self.digests[path].flatMap { $0.0 == stamp ? $0.1 : nil } },
                remember: { path, stamp, digest in
                    self.hashed += 1
                    self.digests[path] = (stamp, digest)
                })
        }
    }

    @Test func sameSizeEditIsCaughtByTheDigestAndRestoringTheContentPasses() throws {
        try withTemporaryDirectory { dir in
            let file = dir.appendingPathComponent("clip.bin")
            let original = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            try original.write(to: file)
            let (parsed, problems) = parseProjectText(
                """
                {"assets": {"clip": {"path": "\(file.path)"}},
                 "tracks": [{"kind": "video", "items": [{"asset": "clip", "at": "0", "duration": "1"}]}]}
                """)
            let project = try #require(parsed, "\(problems)")
            let counter = CountingPinning()
            let pins = try counter.pinning.pins(of: project)
            #expect(pins["clip"] == MediaPin(size: 100_000, sha256: try SHA256.file(file.path)))
            try counter.pinning.check(["clip"], of: project, against: pins)
            #expect(counter.hashed == 1, "an unchanged file is not hashed again")

            var edited = original
            edited[50_000] ^= 0xff
            try edited.write(to: file)
            let error = #expect(throws: MediaChangedError.self) {
                try counter.pinning.check(["clip"], of: project, against: pins)
            }
            #expect(error?.description == "assets.clip: media changed since the job was submitted (\(file.path))")

            try original.write(to: file)
            try counter.pinning.check(["clip"], of: project, against: pins)
            // Assets the chunk does not use are not looked at.
            try Data().write(to: file)
            try counter.pinning.check([], of: project, against: pins)
        }
    }
}
