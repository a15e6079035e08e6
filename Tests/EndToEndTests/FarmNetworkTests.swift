import FarmCore
import FarmStore
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Workers on other hosts: the coordinator and two workers each in their own network
/// namespace, joined by veth pairs on a bridge, so they reach each other only over that network.
@Suite(.serialized) struct FarmNetworkTests {
    /// Three namespaces on a private 10.77.x.0/24 bridge, removed afterwards.
    final class Network {
        let tag = String(UInt32.random(in: 0..<100_000), radix: 36)
        let subnet = Int.random(in: 1...250)
        var namespaces: [String] = []

        func ip(_ arguments: [String]) throws {
            let result = try run("/usr/sbin/ip", arguments)
            guard result.status == 0 else {
                throw TestError.failed("ip \(arguments.joined(separator: " ")): \(result.stderr)")
            }
        }

        /// Creates namespace `name` holding address 10.77.subnet.host, plugged into the bridge.
        func host(_ name: String, address host: Int) throws -> (namespace: String, address: String) {
            let bridge = "fb-\(tag)"
            if namespaces.isEmpty {
                try ip(["netns", "add", bridge])
                namespaces.append(bridge)
                try ip(["-n", bridge, "link", "add", "br0", "type", "bridge"])
                try ip(["-n", bridge, "link", "set", "br0", "up"])
            }
            let namespace = "f\(name)-\(tag)"
            try ip(["netns", "add", namespace])
            namespaces.append(namespace)
            let inside = "v\(name)\(tag)"
            let outside = "b\(name)\(tag)"
            try ip(["link", "add", inside, "type", "veth", "peer", "name", outside])
            try ip(["link", "set", inside, "netns", namespace])
            try ip(["link", "set", outside, "netns", bridge])
            try ip(["-n", bridge, "link", "set", outside, "master", "br0", "up"])
            let address = "10.77.\(subnet).\(host)"
            try ip(["-n", namespace, "addr", "add", "\(address)/24", "dev", inside])
            try ip(["-n", namespace, "link", "set", inside, "up"])
            try ip(["-n", namespace, "link", "set", "lo", "up"])
            return (namespace, address)
        }

        deinit {
            for namespace in namespaces.reversed() { _ = try? run("/usr/sbin/ip", ["netns", "del", namespace]) }
        }
    }

    @Test(.enabled(if: getuid() == 0, "network namespaces need root"))
    func workersInOtherNetworkNamespacesRenderAJob() throws {
        try withTemporaryDirectory { dir in
            let project = try FarmTests.seamProject(in: dir)
            let local = dir.appendingPathComponent("local.mov")
            try FarmTests.farm(["render", project.path, "-o", local.path, "--local"])
            let network = Network()
            let coordinatorHost = try network.host("c", address: 1)
            let first = try network.host("w1", address: 2)
            let second = try network.host("w2", address: 3)
            let farm = try TestFarm(directory: dir)
            defer { farm.stopAll() }
            let endpoint = "tcp://\(coordinatorHost.address):5555"
            // No keys on this private bridge: binding a reachable address then needs --insecure.
            try farm.startCoordinator(bind: endpoint, namespace: coordinatorHost.namespace, arguments: ["--insecure"])
            try farm.startWorker("w1", coordinator: endpoint, namespace: first.namespace)
            try farm.startWorker("w2", coordinator: endpoint, namespace: second.namespace)
            let output = dir.appendingPathComponent("out.mov")
            let job = try farm.submit(project, output: output, chunkArguments: ["--chunk-frames", "10"])
            let record = try farm.finish(job)
            #expect(record.state == .done, "\(record.error ?? "")\n\(farm.logs)")
            #expect(try frameHashes(output) == frameHashes(local))
            #expect(try audioHash(output) == audioHash(local))
            let done = try farm.attempts(job).filter { $0.outcome == "done" }
            #expect(Set(done.map(\.worker)) == ["w1", "w2"], "both workers rendered over the bridge")
            // The loopback address of a worker's namespace leads nowhere: the bridge is the only path.
            let probe = try run(
                "/usr/sbin/ip", ["netns", "exec", first.namespace, "bash", "-c", "echo > /dev/tcp/127.0.0.1/5555"])
            #expect(probe.status != 0)
        }
    }
}
