import Testing

@testable import FarmCoordinator

/// Where notices may go: networks read from `--notify-allow`, and the default that keeps them
/// off link-local addresses.
@Suite struct NotifyTargetsTests {
    @Test func networksHoldTheirAddressesAndNoOthers() throws {
        let cases: [(network: String, inside: [String], outside: [String])] = [
            ("10.0.0.0/8", ["10.0.0.0", "10.255.1.2"], ["11.0.0.1", "9.255.255.255", "fd00::1"]),
            ("192.168.1.20", ["192.168.1.20"], ["192.168.1.21"]),
            ("172.16.0.0/12", ["172.31.255.255"], ["172.32.0.0"]),
            ("fd00::/8", ["fd12:3456::1"], ["fe80::1", "10.0.0.1"]),
            ("0.0.0.0/0", ["8.8.8.8", "127.0.0.1"], ["::1"]),
            // An IPv4-mapped IPv6 address is its IPv4 address.
            ("127.0.0.0/8", ["::ffff:127.0.0.1"], ["::1"]),
        ]
        for (text, inside, outside) in cases {
            let network = try #require(IPNetwork(text), "\(text)")
            for address in inside {
                #expect(network.contains(try #require(IPNetwork.address(address))), "\(address) in \(text)")
            }
            for address in outside {
                #expect(!network.contains(try #require(IPNetwork.address(address))), "\(address) not in \(text)")
            }
        }
        for bad in ["garbage", "10.0.0.0/33", "10.0.0/8", "::1/129", "10.0.0.0/", "/8", ""] {
            #expect(IPNetwork(bad) == nil, "\(bad)")
        }
    }

    @Test func theDefaultRefusesLinkLocalAlone() {
        let anywhere = NotifyTargets()
        for host in ["169.254.169.254", "[fe80::1]", "::ffff:169.254.169.254"] {
            #expect(anywhere.refusal(host: host)?.contains("link-local") == true, "\(host)")
        }
        for host in ["127.0.0.1", "10.1.2.3", "[::1]", "203.0.113.9"] {
            #expect(anywhere.refusal(host: host) == nil, "\(host)")
        }
        let listed = NotifyTargets(allowed: [IPNetwork("10.0.0.0/8")!, IPNetwork("169.254.169.254")!])
        #expect(listed.refusal(host: "10.9.9.9") == nil)
        #expect(listed.refusal(host: "169.254.169.254") == nil, "named in the list")
        #expect(listed.refusal(host: "127.0.0.1") == "127.0.0.1 is 127.0.0.1, outside --notify-allow")
        // A name is checked by what it resolves to.
        #expect(listed.refusal(host: "localhost")?.contains("outside --notify-allow") == true)
    }
}
