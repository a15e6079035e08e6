import FarmCore
import Foundation

/// API tokens, and the dashboard's session ids: 32 random bytes in hex behind a prefix
/// (`farm_`, `session_`), stored only as their SHA-256.
public enum APIToken {
    public static func generate(prefix: String = "farm_") -> String {
        var generator = SystemRandomNumberGenerator()
        return prefix
            + (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }
            .joined()
    }

    public static func digest(of token: String) -> String { SHA256.hex(of: token) }
}
