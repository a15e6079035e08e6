import CCrypto
import Foundation

/// Incremental SHA-256, for checking uploaded segments and pinned media blocks piece by piece.
/// OpenSSL's: with the CPU's SHA instructions it hashes several times faster than libavutil's
/// portable code, and every block a worker reads from pinned media goes through it.
public final class SHA256 {
    private let context: OpaquePointer

    public init() {
        context = EVP_MD_CTX_new()!
        EVP_DigestInit_ex(context, EVP_sha256(), nil)
    }

    deinit {
        EVP_MD_CTX_free(context)
    }

    public func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        EVP_DigestUpdate(context, base, bytes.count)
    }

    public func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    public func update(_ data: Data) {
        data.withUnsafeBytes { update($0) }
    }

    /// The digest as lowercase hex; the hasher cannot be used afterwards.
    public func finish() -> String {
        Self.lowercaseHex(finishBytes())
    }

    /// The digest's 32 bytes; the hasher cannot be used afterwards.
    public func finishBytes() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        EVP_DigestFinal_ex(context, &digest, &length)
        return digest
    }

    /// Two hex digits a byte; String(format:) cost a fifth of a chunk key's time.
    static func lowercaseHex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The hex SHA-256 of a text's UTF-8 bytes.
    public static func hex(of text: String) -> String {
        let hasher = SHA256()
        hasher.update(Array(text.utf8))
        return hasher.finish()
    }

    /// The hex SHA-256 of a whole file, read in bounded pieces.
    public static func file(_ path: String) throws -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw ChecksumError(description: "checksum: cannot open \(path)")
        }
        defer { try? handle.close() }
        let hasher = SHA256()
        while let data = try handle.read(upToCount: 1 << 20), !data.isEmpty {
            data.withUnsafeBytes { hasher.update($0) }
        }
        return hasher.finish()
    }
}

public struct ChecksumError: Error, CustomStringConvertible, Sendable {
    public var description: String
}
