import FarmCore
import Foundation

/// API tokens: 32 random bytes in hex behind a `farm_` prefix, stored as their SHA-256.
public enum APIToken {
    public static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        return "farm_"
            + (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }
            .joined()
    }

    public static func digest(of token: String) -> String { SHA256.hex(of: token) }
}
