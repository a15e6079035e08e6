import FarmCore
import Foundation

/// Where an OTIO `ExternalReference.target_url` points on this machine.
enum OTIOMediaPath {
    /// The path in `url`: a `file:` URL percent-decoded (`file:///Volumes/A/x.mov`,
    /// `file://localhost/D%3a/media/x.mov` → `D:/media/x.mov`), or a plain path as it is.
    /// Nil for other schemes (http, …).
    static func path(fromURL url: String) -> String? {
        guard let colon = url.firstIndex(of: ":"), url[..<colon].count > 1,
            url[..<colon].allSatisfy({ $0.isLetter || $0 == "+" || $0 == "-" || $0 == "." })
        else { return url }  // A plain path (or a Windows drive, "D:\media\x.mov").
        guard url[..<colon].lowercased() == "file" else { return nil }
        var rest = url[url.index(after: colon)...]
        if rest.hasPrefix("//") {
            rest = rest.dropFirst(2)
            // An authority: "" or "localhost" (a host of its own is a network share).
            let slash = rest.firstIndex(of: "/") ?? rest.endIndex
            let host = rest[..<slash]
            rest = rest[slash...]
            if !host.isEmpty && host.lowercased() != "localhost" {
                return "//\(host)\(rest)".removingPercentEncoding
            }
        }
        guard var path = String(rest).removingPercentEncoding else { return nil }
        // "/D:/media/x.mov": a Windows drive behind the URL's slash.
        let scalars = Array(path.unicodeScalars)
        if scalars.count >= 3, scalars[0] == "/", CharacterSet.letters.contains(scalars[1]), scalars[2] == ":" {
            path.removeFirst()
        }
        return path
    }

    /// `path` with the first matching prefix replaced by its folder. A prefix matches a whole
    /// leading part of the path ("D:/media" matches "D:/media/x.mov", not "D:/mediafiles");
    /// backslashes count as slashes, so Windows paths relink too. A prefix may be a `file:` URL
    /// as the document writes it ("file:///Volumes/My%20Media/"): it means the path it names.
    static func relinked(_ path: String, with relinks: [(prefix: String, folder: String)]) -> String {
        let normal = path.replacingOccurrences(of: "\\", with: "/")
        for (prefix, folder) in relinks {
            let named = prefix.lowercased().hasPrefix("file:") ? (Self.path(fromURL: prefix) ?? prefix) : prefix
            var from = named.replacingOccurrences(of: "\\", with: "/")
            while from.count > 1 && from.hasSuffix("/") { from.removeLast() }
            guard normal.hasPrefix(from) else { continue }
            let rest = normal.dropFirst(from.count)
            guard rest.isEmpty || rest.hasPrefix("/") || from.hasSuffix("/") else { continue }
            var target = folder
            while target.count > 1 && target.hasSuffix("/") { target.removeLast() }
            let tail = rest.drop(while: { $0 == "/" })
            return tail.isEmpty ? target : "\(target)/\(tail)"
        }
        return path
    }
}
