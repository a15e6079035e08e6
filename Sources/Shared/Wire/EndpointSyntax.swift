/// What a ZeroMQ endpoint given on the command line must look like, checked before any socket
/// exists so a typo is a usage error naming the option, not a transport failure.
public enum EndpointSyntax {
    /// Nil when `endpoint` is `tcp://HOST:PORT` (HOST may be `*` to bind every interface) or
    /// `ipc://PATH`; otherwise what is wrong with it.
    public static func problem(in endpoint: String) -> String? {
        if endpoint.hasPrefix("ipc://") {
            return endpoint.count > "ipc://".count ? nil : "needs a path after ipc://"
        }
        guard endpoint.hasPrefix("tcp://") else {
            return "must be tcp://HOST:PORT or ipc://PATH (got \(endpoint))"
        }
        let address = endpoint.dropFirst("tcp://".count)
        guard let colon = address.lastIndex(of: ":"), colon != address.startIndex,
            let port = Int(address[address.index(after: colon)...]), (1...65535).contains(port)
        else {
            return "must be tcp://HOST:PORT with a port from 1 to 65535 (got \(endpoint))"
        }
        return nil
    }

    /// Whether only this machine can reach `endpoint`: ipc, or TCP on a loopback address.
    public static func isLoopback(_ endpoint: String) -> Bool {
        if endpoint.hasPrefix("ipc://") { return true }
        guard endpoint.hasPrefix("tcp://"), let colon = endpoint.lastIndex(of: ":") else { return false }
        let host = endpoint[endpoint.index(endpoint.startIndex, offsetBy: "tcp://".count)..<colon]
        return host.hasPrefix("127.") || ["localhost", "lo", "::1", "[::1]"].contains(host)
    }

    /// For a wildcard TCP endpoint (`tcp://*:PORT`), the same port on 127.0.0.1; nil otherwise.
    public static func loopback(for endpoint: String) -> String? {
        guard endpoint.hasPrefix("tcp://*:") else { return nil }
        return "tcp://127.0.0.1:" + endpoint.dropFirst("tcp://*:".count)
    }
}
