import CZeroMQ
import Foundation

/// A CURVE key pair (Z85 text, 40 characters each) and the files it lives in: `NAME.key`
/// holds both keys and stays secret (mode 0600); `NAME.pub` holds the public key and is what
/// the other side is given. The name is who the pair belongs to: a worker's id.
public struct CurveKeys: Sendable, Equatable {
    public var name: String
    public var publicKey: String
    public var secretKey: String

    /// Whether a worker may use `id` with the key named `name`: the name itself, or
    /// `NAME@SUFFIX` (several workers sharing one key, e.g. replicas of one container).
    public static func id(_ id: String, belongsTo name: String) -> Bool {
        id == name || id.hasPrefix(name + "@")
    }

    /// A fresh pair from libzmq (libsodium's randomness).
    public static func generate(name: String) throws -> CurveKeys {
        var publicKey = [CChar](repeating: 0, count: 41)
        var secretKey = [CChar](repeating: 0, count: 41)
        guard zmq_curve_keypair(&publicKey, &secretKey) == 0 else { throw TransportError("generate a CURVE key pair") }
        return CurveKeys(name: name, publicKey: String(cString: publicKey), secretKey: String(cString: secretKey))
    }

    /// Writes `DIR/NAME.key` (0600) and `DIR/NAME.pub`; refuses to replace existing files.
    public func write(to folder: URL) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let secret = folder.appendingPathComponent("\(name).key")
        let shared = folder.appendingPathComponent("\(name).pub")
        for file in [secret, shared] where FileManager.default.fileExists(atPath: file.path) {
            throw TransportError(message: "\(file.path) exists; remove it first to make a new pair")
        }
        let text = """
            # farm CURVE key pair \(name): keep this file secret
            public-key = \(publicKey)
            secret-key = \(secretKey)

            """
        guard
            FileManager.default.createFile(
                atPath: secret.path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600])
        else { throw TransportError(message: "cannot write \(secret.path)") }
        try Data("\(publicKey)\n".utf8).write(to: shared)
    }

    /// Reads a `NAME.key` file.
    public static func load(_ file: URL) throws -> CurveKeys {
        let text = try Self.text(of: file)
        var fields: [String: String] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        guard let publicKey = fields["public-key"], let secretKey = fields["secret-key"],
            isZ85Key(publicKey), isZ85Key(secretKey)
        else {
            throw TransportError(message: "\(file.path): not a key pair from `farm keys generate`")
        }
        return CurveKeys(
            name: file.deletingPathExtension().lastPathComponent, publicKey: publicKey, secretKey: secretKey)
    }

    /// Reads a `NAME.pub` file: the public key.
    public static func loadPublic(_ file: URL) throws -> String {
        let key = try text(of: file).trimmingCharacters(in: .whitespacesAndNewlines)
        guard isZ85Key(key) else {
            throw TransportError(message: "\(file.path): not a public key from `farm keys generate`")
        }
        return key
    }

    /// Every `NAME.pub` in `folder`, by name.
    public static func loadPublicKeys(in folder: URL) throws -> [String: String] {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".pub") }
        var keys: [String: String] = [:]
        for name in names {
            keys[String(name.dropLast(4))] = try loadPublic(folder.appendingPathComponent(name))
        }
        return keys
    }

    private static func text(of file: URL) throws -> String {
        guard let data = FileManager.default.contents(atPath: file.path) else {
            throw TransportError(message: "\(file.path): cannot be read")
        }
        return String(decoding: data, as: UTF8.self)
    }

    static func isZ85Key(_ text: String) -> Bool {
        text.utf8.count == 40 && decode(text) != nil
    }

    /// The 32 raw bytes of a Z85 key.
    static func decode(_ text: String) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: 32)
        return zmq_z85_decode(&bytes, text) == nil ? nil : bytes
    }

    /// The Z85 text of 32 raw key bytes.
    static func encode(_ bytes: [UInt8]) -> String {
        var text = [CChar](repeating: 0, count: 41)
        _ = zmq_z85_encode(&text, bytes, bytes.count)
        return String(cString: text)
    }
}
