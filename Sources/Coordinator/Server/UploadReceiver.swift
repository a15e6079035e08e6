import FarmCore
import FarmMedia
import FarmWire
import Foundation

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
        let handle: FileHandle
        let hasher = SHA256()
        var received: Int64 = 0

        /// Opens `url` to write, starting empty or, when `resuming`, after the bytes it holds.
        init(url: URL, resuming: Bool) throws {
            if !resuming { _ = FileManager.default.createFile(atPath: url.path, contents: nil) }
            guard let handle = FileHandle(forUpdatingAtPath: url.path) else {
                throw TransportError(message: "cannot write \(url.path)")
            }
            self.url = url
            self.handle = handle
            if resuming {
                while let data = try handle.read(upToCount: 1 << 20), !data.isEmpty {
                    hasher.update(data)
                    received += Int64(data.count)
                }
            }
        }

        func append(_ bytes: [UInt8]) throws {
            do {
                try handle.seek(toOffset: UInt64(received))
                try handle.write(contentsOf: bytes)
            } catch {
                try? handle.truncate(atOffset: UInt64(received))
                throw TransportError(message: "cannot write \(url.path): \(error.localizedDescription)")
            }
            hasher.update(bytes)
            received += Int64(bytes.count)
        }
    }

    private var uploads: [AttemptKey: Upload] = [:]

    /// Writes the piece if it continues the upload; returns the bytes now held, from which the
    /// worker goes on. A piece at offset 0 starts the upload over.
    func receive(_ piece: UploadPiece, bytes: [UInt8], into folder: JobFolder) throws -> Int64 {
        if piece.offset == 0 {
            discard(piece.key)
            try folder.create()
            uploads[piece.key] = try Upload(url: folder.upload(piece.key), resuming: false)
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
        try upload.handle.close()
        return Completed(url: upload.url, bytes: upload.received, sha256: upload.hasher.finish())
    }

    /// The upload in memory, or the one a previous coordinator left on disk.
    private func upload(_ key: AttemptKey, in folder: JobFolder) throws -> Upload? {
        if let upload = uploads[key] { return upload }
        let url = folder.upload(key)
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        let resumed = try Upload(url: url, resuming: true)
        uploads[key] = resumed
        return resumed
    }

    func discard(_ key: AttemptKey) {
        guard let upload = uploads.removeValue(forKey: key) else { return }
        try? upload.handle.close()
        try? FileManager.default.removeItem(at: upload.url)
    }
}
