import FarmCoordinator
import Testing

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

    @Test func theDefaultRefusesWhereCloudMetadataAnswers() {
        let anywhere = NotifyTargets()
        let metadata = [
            "169.254.169.254", "[fe80::1]", "::ffff:169.254.169.254", "100.100.100.200", "[fd00:ec2::254]",
            "[fd20:ce::254]",
        ]
        for host in metadata {
            let refusal = anywhere.refusal(host: host)
            #expect(
                refusal?.reason.contains("where cloud metadata answers") == true && refusal?.final == true, "\(host)")
        }
        for host in ["127.0.0.1", "10.1.2.3", "[::1]", "203.0.113.9", "100.100.100.201"] {
            #expect(anywhere.refusal(host: host) == nil, "\(host)")
        }
        // A name that does not resolve is not sent to now, and tried again later.
        let unresolved = anywhere.refusal(host: "no-such-host.invalid")
        #expect(unresolved?.reason == "no-such-host.invalid does not resolve" && unresolved?.final == false)

        let listed = NotifyTargets(allowed: [IPNetwork("10.0.0.0/8")!, IPNetwork("169.254.169.254")!])
        #expect(listed.refusal(host: "10.9.9.9") == nil)
        #expect(listed.refusal(host: "169.254.169.254") == nil, "named in the list")
        let outside = listed.refusal(host: "127.0.0.1")
        #expect(outside?.reason == "127.0.0.1 is 127.0.0.1, outside --notify-allow" && outside?.final == true)
        // A name is checked by what it resolves to.
        #expect(listed.refusal(host: "localhost")?.reason.contains("outside --notify-allow") == true)
        // An IPv4-mapped network is its IPv4 network.
        let mapped = NotifyTargets(allowed: [IPNetwork("::ffff:10.0.0.0/104")!])
        #expect(mapped.refusal(host: "10.200.0.1") == nil)
        #expect(mapped.refusal(host: "11.0.0.1") != nil)
        #expect(IPNetwork("::ffff:10.0.0.0/95") == nil)
    }
}
