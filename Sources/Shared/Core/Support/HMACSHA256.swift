import CCrypto

/// HMAC-SHA256 (RFC 2104), OpenSSL's: what signs the farm's notifications, so that a receiver
/// holding the farm's secret can tell them from anyone else's POST.
public enum HMACSHA256 {
    /// The lowercase hex HMAC of `message` under `key`.
    public static func hex(key: String, message: [UInt8]) -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let keyBytes = Array(key.utf8)
        _ = keyBytes.withUnsafeBytes { keyBuffer in
            message.withUnsafeBufferPointer { messageBuffer in
                HMAC(
                    EVP_sha256(), keyBuffer.baseAddress, Int32(keyBuffer.count), messageBuffer.baseAddress,
                    messageBuffer.count, &digest, &length)
            }
        }
        return SHA256.lowercaseHex(Array(digest.prefix(Int(length))))
    }
}
