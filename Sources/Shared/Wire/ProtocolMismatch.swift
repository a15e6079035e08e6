/// A peer that speaks another version of the wire protocol: the coordinator answers it with
/// `refused` in its own version (which the peer cannot read, and logs as this same mismatch),
/// so both sides say why they cannot work together.
public struct ProtocolMismatch: Error, Sendable, CustomStringConvertible {
    /// The protocol tag the peer sent.
    public let peer: String

    public var description: String { "peer speaks \"\(peer)\", this farm speaks \"\(WireMessage.protocolTag)\"" }
}

/// Why the coordinator will not work with a peer.
public struct Refusal: Codable, Sendable, Hashable {
    public var reason: String

    public init(reason: String) {
        self.reason = reason
    }
}
