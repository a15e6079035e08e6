/// The tags that route work: a worker serves the pools it is tagged with (`farm-worker --tags
/// gpu,4k`), and a job requiring tags (`farm submit --requires 4k`) goes only to workers whose
/// tags cover them all, as Flamenco's tags and Deadline's pools do.
public enum PoolTags {
    /// At most this many tags on a worker or a job.
    public static let most = 32
    /// At most this many characters in a tag.
    public static let longest = 64

    /// Tags from a comma-separated list ("gpu, 4k,site-a"): trimmed, lower-cased, without
    /// repeats, sorted. Throws naming the first that is not a tag.
    public static func parse(_ list: String) throws -> [String] {
        try check(list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
    }

    /// `tags` checked and put in order; an empty list is no requirement.
    public static func check(_ tags: [String]) throws -> [String] {
        let tags = Set(tags.map { $0.lowercased() }).sorted()
        for tag in tags {
            if let problem = problem(in: tag) { throw PoolTagError(message: "tag \"\(tag.prefix(80))\" \(problem)") }
        }
        guard tags.count <= most else { throw PoolTagError(message: "\(tags.count) tags; at most \(most)") }
        return tags
    }

    /// What makes `tag` no tag, or nil.
    public static func problem(in tag: String) -> String? {
        if tag.isEmpty { return "is empty" }
        if tag.count > longest { return "is longer than \(longest) characters" }
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789._-")
        if !tag.allSatisfy(allowed.contains) { return "may hold only a-z, 0-9, '.', '_' and '-'" }
        return nil
    }
}

public struct PoolTagError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public var description: String { message }
}
