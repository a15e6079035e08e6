import CFFmpeg
import Foundation

/// Incremental SHA-256 (libavutil's), for checking uploaded segments piece by piece.
public final class SHA256 {
    private let context: OpaquePointer

    public init() {
        context = av_sha_alloc()!
        av_sha_init(context, 256)
    }

    deinit {
        av_free(UnsafeMutableRawPointer(context))
    }

    func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        av_sha_update(context, base.assumingMemoryBound(to: UInt8.self), bytes.count)
    }

    public func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    public func update(_ data: Data) {
        data.withUnsafeBytes { update($0) }
    }

    /// The digest as lowercase hex; the hasher cannot be used afterwards.
    public func finish() -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        av_sha_final(context, &digest)
        return digest.map { String(format: "%02x", $0) }.joined()
    }

    /// The hex SHA-256 of a whole file, read in bounded pieces.
    public static func file(_ path: String) throws -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw FFmpegError(operation: "checksum", message: "cannot open \(path)")
        }
        defer { try? handle.close() }
        let hasher = SHA256()
        while let data = try handle.read(upToCount: 1 << 20), !data.isEmpty {
            data.withUnsafeBytes { hasher.update($0) }
        }
        return hasher.finish()
    }
}
