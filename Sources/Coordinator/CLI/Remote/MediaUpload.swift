import FarmCore
import Foundation

/// A file sent to a farm's media root over its API (`PUT /api/media/{sha256}`), in pieces:
/// what the farm holds already (a cut upload's first part, or the whole file) is not sent again.
struct MediaUpload {
    static let piece = 8 << 20

    struct Kept {
        var digest: String
        var size: Int64
        /// The asset path by content (`uploads/sha256/HEX`) and by name (`uploads/NAME`).
        var path: String
        var namePath: String?
        /// Bytes sent by this call: 0 when the farm held the file already.
        var sent: Int64
    }

    static func send(_ file: URL, name: String?, with client: APIClient) throws -> Kept {
        let digest = try SHA256.file(file.path)
        guard let handle = FileHandle(forReadingAtPath: file.path) else {
            throw APIClient.Failure(status: 0, message: "\(file.path): cannot be read")
        }
        defer { try? handle.close() }
        let size = Int64(try handle.seekToEnd())
        let query =
            name.flatMap { $0.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) }.map {
                "?name=\($0)"
            } ?? ""
        let path = "/api/media/\(digest)\(query)"
        let held = try? client.object("GET", "/api/media/\(digest)")
        var offset = (held?["received"] as? NSNumber)?.int64Value ?? 0
        if held?["complete"] as? Bool == true {
            offset = size  // kept already: an empty request links the name, and no byte goes
        }
        var sent: Int64 = 0
        while true {
            try handle.seek(toOffset: UInt64(offset))
            let data = offset < size ? try handle.read(upToCount: piece) ?? Data() : Data()
            let status = try client.object(
                "PUT", path, body: data,
                headers: [
                    "Upload-Length": String(size), "Upload-Offset": String(offset),
                    "Content-Type": "application/octet-stream",
                ])
            sent += Int64(data.count)
            if status["complete"] as? Bool == true {
                return Kept(
                    digest: digest, size: size, path: status["path"] as? String ?? "uploads/sha256/\(digest)",
                    namePath: status["namePath"] as? String, sent: sent)
            }
            guard !data.isEmpty else {
                throw APIClient.Failure(status: 0, message: "\(file.path): the farm took no more bytes at \(offset)")
            }
            offset = (status["received"] as? NSNumber)?.int64Value ?? offset + Int64(data.count)
        }
    }
}
