import FarmCore
import Foundation

/// Media uploaded over HTTP, kept by content under the coordinator's media root, so that a
/// project submitted over HTTP can name it as an asset:
///
///     ROOT/uploads/sha256/HEX    the file, once its bytes have the SHA-256 it was sent under
///     ROOT/uploads/NAME          the same file (a hard link), when uploaded with ?name=NAME
///     ROOT/uploads/.partial/HEX  the bytes received so far, and HEX.length, the size promised
///
/// An upload is resumable: a cut connection keeps what arrived, and the next request goes on
/// from `received`. Only a complete file whose digest matches is ever moved into place.
struct MediaUploads: Sendable {
    let root: URL
    /// The largest file taken, in bytes.
    let limit: Int64

    enum Problem: Error {
        case badDigest(String)
        case badName(String)
        case tooLarge(Int64, limit: Int64)
        case otherLength(promised: Int64, given: Int64)
        case wrongOffset(received: Int64, given: Int64)
        case beyondLength(Int64)
        case digestMismatch(expected: String, got: String, bytes: Int64)
    }

    /// Where an upload stands.
    struct Status: Codable, Sendable, Equatable {
        var sha256: String
        /// Bytes held so far (all of them once complete).
        var received: Int64
        /// The size promised by `Upload-Length`, or the file's once complete.
        var size: Int64
        var complete: Bool
        /// Once complete: the asset paths that name it, relative to the media root.
        var path: String?
        var namePath: String?
    }

    var uploads: URL { root.appendingPathComponent("uploads") }
    var partials: URL { uploads.appendingPathComponent(".partial") }

    func finalURL(_ digest: String) -> URL { uploads.appendingPathComponent("sha256").appendingPathComponent(digest) }

    static func checkDigest(_ text: String) throws -> String {
        let digest = text.lowercased()
        guard digest.utf8.count == 64, digest.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) })
        else { throw Problem.badDigest(text) }
        return digest
    }

    /// A plain file name: no folders, not hidden, at most 255 bytes.
    static func checkName(_ name: String) throws -> String {
        guard !name.isEmpty, name.utf8.count <= 255, !name.hasPrefix("."), !name.contains("/"),
            !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { throw Problem.badName(name) }
        return name
    }

    /// Nil when nothing of `digest` is here.
    func status(_ digest: String) -> Status? {
        let done = finalURL(digest)
        if let size = fileSize(done) {
            return Status(
                sha256: digest, received: size, size: size, complete: true, path: "uploads/sha256/\(digest)")
        }
        let partial = partials.appendingPathComponent(digest)
        guard let received = fileSize(partial) else { return nil }
        return Status(sha256: digest, received: received, size: promised(digest) ?? received, complete: false)
    }

    /// The kept file of `digest`, linked as `uploads/NAME` when a name is given; nil while it
    /// is not complete.
    func kept(_ digest: String, name: String?) throws -> Status? {
        guard var status = status(digest), status.complete else { return nil }
        if let name { status.namePath = try link(digest, as: name) }
        return status
    }

    /// Opens the partial file for bytes from `offset` of a file of `length` bytes; checks
    /// them against what is held.
    func begin(_ digest: String, offset: Int64, length: Int64) throws -> FileHandle {
        guard length <= limit else { throw Problem.tooLarge(length, limit: limit) }
        try FileManager.default.createDirectory(at: partials, withIntermediateDirectories: true)
        let partial = partials.appendingPathComponent(digest)
        let received = fileSize(partial) ?? 0
        if let promised = promised(digest), promised != length, received > 0 {
            throw Problem.otherLength(promised: promised, given: length)
        }
        guard offset == received else { throw Problem.wrongOffset(received: received, given: offset) }
        try Data(String(length).utf8).write(to: partials.appendingPathComponent("\(digest).length"), options: .atomic)
        if received == 0 { _ = FileManager.default.createFile(atPath: partial.path, contents: nil) }
        let handle = try FileHandle(forWritingTo: partial)
        try handle.seekToEnd()
        return handle
    }

    /// After a request's bytes: the file moved into place if it is whole and its digest
    /// matches; a whole file that does not match is removed (nothing is stored).
    func finish(_ digest: String, name: String?) throws -> Status {
        let partial = partials.appendingPathComponent(digest)
        if let status = try kept(digest, name: name) {
            // Another request completed it meanwhile: this one's bytes are not needed.
            discard(digest)
            return status
        }
        let received = fileSize(partial) ?? 0
        let length = promised(digest) ?? received
        if received > length {
            try? FileHandle(forWritingTo: partial).truncate(atOffset: UInt64(length))
            throw Problem.beyondLength(length)
        }
        guard received == length else {
            return Status(sha256: digest, received: received, size: length, complete: false)
        }
        let actual = try SHA256.file(partial.path)
        guard actual == digest else {
            discard(digest)
            throw Problem.digestMismatch(expected: digest, got: actual, bytes: received)
        }
        let done = finalURL(digest)
        try FileManager.default.createDirectory(at: done.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.moveItem(at: partial, to: done)
        try? FileManager.default.removeItem(at: partials.appendingPathComponent("\(digest).length"))
        chmod(done.path, 0o644)
        return try kept(digest, name: name)!
    }

    /// `uploads/NAME` made to name the file of `digest`, replacing what it named before.
    func link(_ digest: String, as name: String) throws -> String {
        let named = uploads.appendingPathComponent(name)
        let temporary = uploads.appendingPathComponent(".partial/link-\(UUID().uuidString)")
        try FileManager.default.linkItem(at: finalURL(digest), to: temporary)
        guard rename(temporary.path, named.path) == 0 else {
            try? FileManager.default.removeItem(at: temporary)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: named.path])
        }
        return "uploads/\(name)"
    }

    func discard(_ digest: String) {
        try? FileManager.default.removeItem(at: partials.appendingPathComponent(digest))
        try? FileManager.default.removeItem(at: partials.appendingPathComponent("\(digest).length"))
    }

    private func promised(_ digest: String) -> Int64? {
        (try? String(contentsOf: partials.appendingPathComponent("\(digest).length"), encoding: .utf8))
            .flatMap { Int64($0) }
    }

    private func fileSize(_ url: URL) -> Int64? {
        (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.int64Value
    }
}
