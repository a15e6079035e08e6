import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Where the farm's notifications may go (`farm serve --notify-allow`). Anyone with a submit
/// token chooses a job's notify URL, and the coordinator POSTs to it from inside the farm's
/// network; so every address its host resolves to is checked before the request, and a host
/// that does not resolve is not sent to (it is tried again later). Without a list, anywhere but
/// where cloud machines' metadata answers (link-local 169.254.0.0/16 and fe80::/10, and
/// 100.100.100.200, fd00:ec2::254, fd20:ce::254); with one, only inside it. Redirects are never
/// followed (`JobNotifier`).
///
/// The check resolves the name, and the request resolves it again: a name whose answer
/// changes in between gets through once. A farm that must rule that out names addresses.
public struct NotifyTargets: Sendable, Equatable {
    /// nil: anywhere but link-local.
    public var allowed: [IPNetwork]?

    public init(allowed: [IPNetwork]? = nil) {
        self.allowed = allowed
    }

    /// Where cloud machines' metadata answers: link-local, and the few providers' own addresses.
    static let metadata = ["169.254.0.0/16", "fe80::/10", "100.100.100.200", "fd00:ec2::254", "fd20:ce::254"]
        .map { IPNetwork($0)! }

    /// Why a notice may not go to `host`, or nil when it may; `final` when trying again cannot
    /// change that (a host that does not resolve now may later).
    public func refusal(host: String) -> (reason: String, final: Bool)? {
        let addresses = IPNetwork.addresses(of: host)
        guard !addresses.isEmpty else { return ("\(host) does not resolve", false) }
        for address in addresses {
            let text = IPNetwork.text(of: address)
            if let allowed {
                if !allowed.contains(where: { $0.contains(address) }) {
                    return ("\(host) is \(text), outside --notify-allow", true)
                }
            } else if Self.metadata.contains(where: { $0.contains(address) }) {
                return (
                    "\(host) is \(text), where cloud metadata answers; name it in farm serve --notify-allow "
                        + "to notify it", true
                )
            }
        }
        return nil
    }
}

/// An IPv4 or IPv6 network: `10.0.0.0/8`, `fd00::/8`, or one address (`192.168.1.20`).
public struct IPNetwork: Sendable, Equatable, CustomStringConvertible {
    let bytes: [UInt8]
    let prefix: Int
    public let description: String

    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard let bytes = Self.address(parts[0]) else { return nil }
        let bits = bytes.count * 8
        if parts.count == 2 {
            guard var prefix = Int(parts[1]) else { return nil }
            // ::ffff:a.b.c.d/104 is a.b.c.d/8: the address was read as IPv4.
            if bytes.count == 4, parts[0].contains(":") {
                guard prefix >= 96 else { return nil }
                prefix -= 96
            }
            guard (0...bits).contains(prefix) else { return nil }
            self.prefix = prefix
        } else {
            prefix = bits
        }
        self.bytes = bytes
        description = text
    }

    /// Whether `address` (4 or 16 bytes) is inside.
    package func contains(_ address: [UInt8]) -> Bool {
        guard address.count == bytes.count else { return false }
        var left = prefix
        for (mine, theirs) in zip(bytes, address) where left > 0 {
            let mask: UInt8 = left >= 8 ? 0xff : ~(0xff >> UInt8(left))
            guard mine & mask == theirs & mask else { return false }
            left -= 8
        }
        return true
    }

    /// An address's bytes: 4 for IPv4 (and IPv4-mapped IPv6), 16 for IPv6.
    package static func address(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        return unmapped(withUnsafeBytes(of: &v6) { Array($0) })
    }

    /// Every address `host` resolves to (a literal address is itself).
    static func addresses(of host: String) -> [[UInt8]] {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if let literal = address(bare) { return [literal] }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(bare, nil, &hints, &list) == 0 else { return [] }
        defer { freeaddrinfo(list) }
        var found: [[UInt8]] = []
        var entry = list
        while let info = entry?.pointee {
            if info.ai_family == AF_INET, let raw = info.ai_addr {
                raw.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    var address = $0.pointee.sin_addr
                    found.append(withUnsafeBytes(of: &address) { Array($0) })
                }
            } else if info.ai_family == AF_INET6, let raw = info.ai_addr {
                raw.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    var address = $0.pointee.sin6_addr
                    found.append(unmapped(withUnsafeBytes(of: &address) { Array($0) }))
                }
            }
            entry = info.ai_next
        }
        return found
    }

    /// `::ffff:a.b.c.d` is the IPv4 address a.b.c.d.
    private static func unmapped(_ v6: [UInt8]) -> [UInt8] {
        v6.prefix(12) == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff] ? Array(v6.suffix(4)) : v6
    }

    static func text(of address: [UInt8]) -> String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = address.count == 4 ? AF_INET : AF_INET6
        _ = address.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &buffer, socklen_t(buffer.count)) }
        return String(cString: buffer)
    }
}
