import FarmCore
import FarmDataFolder
import FarmRender
import FarmWire
import Foundation
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// Collects uploads piece by piece straight into files, hashing as they arrive, so the
/// coordinator's memory stays bounded whatever the segment size.
///
/// Each piece is written at the offset it claims, and a write that fails (disk full) is cut
/// back off the file, so the bytes on disk are always exactly the bytes acknowledged. An
/// upload this coordinator does not hold in memory (it restarted) resumes from its file.
final class UploadReceiver {
    struct Completed {
        var url: URL
        var bytes: Int64
        var sha256: String
    }

    private final class Upload {
        let url: URL
        let folder: JobFolder
        private let descriptor: Int32
        private(set) var hasher = SHA256()
        var received: Int64 = 0

        /// Opens `url` to write, starting empty or, when `resuming`, after the bytes it holds.
        init(url: URL, folder: JobFolder, resuming: Bool) throws {
            descriptor = try SystemCall.retrying("open", path: url.path) {
                open(url.path, O_RDWR | O_CREAT | O_CLOEXEC | (resuming ? 0 : O_TRUNC), 0o644)
            }
            self.url = url
            self.folder = folder
            guard resuming else { return }
            var buffer = [UInt8](repeating: 0, count: 1 << 20)
            while true {
                let count = try buffer.withUnsafeMutableBytes { buffer in
                    try SystemCall.read(descriptor, into: buffer, count: buffer.count, at: received, path: url.path)
                }
                guard count > 0 else { break }
                hasher.update(Array(buffer[..<count]))
                received += Int64(count)
            }
        }

        deinit { close(descriptor) }

        /// Empties the file to take the upload from its first byte again.
        func restart() throws {
            guard ftruncate(descriptor, 0) == 0 else {
                throw SystemCallError(call: "ftruncate", path: url.path, code: errno)
            }
            hasher = SHA256()
            received = 0
        }

        /// Writes `bytes` after what is held; on failure cuts the file back to what was held.
        func append(_ bytes: [UInt8]) throws {
            do {
                try bytes.withUnsafeBytes { bytes in
                    try SystemCall.write(descriptor, bytes, at: received, path: url.path)
                }
            } catch {
                _ = ftruncate(descriptor, off_t(received))
                throw error
            }
            hasher.update(bytes)
            received += Int64(bytes.count)
        }
    }

    private var uploads: [AttemptKey: Upload] = [:]
    private let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }

    /// The job folder of an upload held in memory: its attempt was current when it began, and
    /// is checked again at its `done`, so its later pieces need no database query.
    func folder(of key: AttemptKey) -> JobFolder? {
        uploads[key]?.folder
    }

    /// Writes the piece if it continues the upload; returns the bytes now held, from which the
    /// worker goes on. A piece at offset 0 starts the upload over: in the same file when it is
    /// held, so a peer repeating first pieces costs a truncation each, not a new file.
    func receive(_ piece: UploadPiece, bytes: [UInt8], into folder: JobFolder) throws -> Int64 {
        if piece.offset == 0, let held = uploads[piece.key] {
            try held.restart()
        } else if piece.offset == 0 {
            do {
                try folder.create()
            } catch {
                throw SystemCallError(
                    call: "mkdir", path: folder.incoming.path, code: (error as NSError).posixCode ?? EIO)
            }
            uploads[piece.key] = try Upload(url: folder.upload(piece.key), folder: folder, resuming: false)
        }
        guard let upload = try upload(piece.key, in: folder) else { return 0 }
        guard piece.offset == upload.received else { return upload.received }
        try upload.append(bytes)
        return upload.received
    }

    /// Closes a finished upload and returns its file and checksum; nil if unknown. The file is
    /// not synced yet: the verifier does that off the loop's thread.
    func complete(_ key: AttemptKey, in folder: JobFolder) throws -> Completed? {
        guard try upload(key, in: folder) != nil, let upload = uploads.removeValue(forKey: key) else { return nil }
        return Completed(url: upload.url, bytes: upload.received, sha256: upload.hasher.finish())
    }

    /// The upload in memory, or the one a previous coordinator left on disk.
    private func upload(_ key: AttemptKey, in folder: JobFolder) throws -> Upload? {
        if let upload = uploads[key] { return upload }
        let url = folder.upload(key)
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        let resumed = try Upload(url: url, folder: folder, resuming: true)
        uploads[key] = resumed
        logger.info("\(key): resuming its upload after the \(resumed.received) bytes on disk")
        return resumed
    }

    func discard(_ key: AttemptKey) {
        guard let upload = uploads.removeValue(forKey: key) else { return }
        try? FileManager.default.removeItem(at: upload.url)
    }
}

extension NSError {
    /// The errno behind a Foundation file error, when there is one.
    fileprivate var posixCode: Int32? {
        if domain == NSPOSIXErrorDomain { return Int32(code) }
        return (userInfo[NSUnderlyingErrorKey] as? NSError)?.posixCode
    }
}
