import FarmCore
import FarmMedia
import FarmWire
import Foundation

/// Collects uploads piece by piece straight into files, hashing as they arrive, so the
/// coordinator's memory stays bounded whatever the segment size.
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

        init(url: URL) throws {
            _ = FileManager.default.createFile(atPath: url.path, contents: nil)
            guard let handle = FileHandle(forWritingAtPath: url.path) else {
                throw TransportError(message: "cannot write \(url.path)")
            }
            self.url = url
            self.handle = handle
        }
    }

    private var uploads: [AttemptKey: Upload] = [:]

    /// Appends the piece if it continues the upload; returns the bytes now held. An upload
    /// this coordinator does not know (it restarted) starts over at offset 0.
    func receive(_ piece: UploadPiece, bytes: [UInt8], into folder: JobFolder) throws -> Int64 {
        if piece.offset == 0 {
            discard(piece.key)
            try folder.create()
            uploads[piece.key] = try Upload(url: folder.upload(piece.key))
        }
        guard let upload = uploads[piece.key] else { return 0 }
        guard piece.offset == upload.received else { return upload.received }
        try upload.handle.write(contentsOf: bytes)
        upload.hasher.update(bytes)
        upload.received += Int64(bytes.count)
        return upload.received
    }

    /// Closes a finished upload and returns its file and checksum; nil if unknown. The file is
    /// not synced yet: the verifier does that off the loop's thread.
    func complete(_ key: AttemptKey) throws -> Completed? {
        guard let upload = uploads.removeValue(forKey: key) else { return nil }
        try upload.handle.close()
        return Completed(url: upload.url, bytes: upload.received, sha256: upload.hasher.finish())
    }

    func discard(_ key: AttemptKey) {
        guard let upload = uploads.removeValue(forKey: key) else { return }
        try? upload.handle.close()
        try? FileManager.default.removeItem(at: upload.url)
    }
}
