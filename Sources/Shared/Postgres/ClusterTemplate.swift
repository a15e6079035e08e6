import FarmCore
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A cluster made once per machine (per user, per PostgreSQL, per schema), which every new
/// private server folder starts as a copy of: `initdb` runs its bootstrap and some 1,000
/// statements (1.5 s on 2 cores) and the farm's schema steps another half second, where copying
/// the result's 40 MB takes a tenth of that. The copy is the cluster those would have made,
/// system identifier included (the private server never replicates, so clusters sharing one
/// never meet).
///
/// Kept in /var/cache/farm as root (the server's user owns it), else in $XDG_CACHE_HOME/farm or
/// ~/.cache/farm, under a name of the server binaries' folder and the schema's last step: another
/// PostgreSQL, or a farm with more steps, makes its own (and removes the older ones).
struct ClusterTemplate {
    let folder: URL

    init(binaries: URL, root: Bool, schema: Int) {
        let environment = ProcessInfo.processInfo.environment
        let cache: URL =
            root
            ? URL(fileURLWithPath: "/var/cache/farm")
            : environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
                ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache")
                .appendingPathComponent("farm")
        kind = "postgres-cluster-\(PrivatePostgres.shortName(of: binaries.standardizedFileURL.path))-"
        folder = cache.appendingPathComponent("\(kind)\(schema)")
    }

    /// The name of every template of these binaries, before the schema's step.
    private let kind: String

    var isMade: Bool { FileManager.default.fileExists(atPath: folder.appendingPathComponent("PG_VERSION").path) }

    /// Makes the template with `create`, run on the folder given (`handOver` gives a folder to
    /// the server's user): in a folder of its own beside it, then renamed into place, so that a
    /// template is whole or absent and two renders making one at once both end with one.
    func make(handOver: (String) throws -> Void, create: (String) throws -> Void) throws {
        let manager = FileManager.default
        let parent = folder.deletingLastPathComponent()
        try manager.createDirectory(at: parent, withIntermediateDirectories: true)
        removeLeftovers(in: parent)
        let staging = parent.appendingPathComponent(".\(folder.lastPathComponent)-\(UUID().uuidString)")
        defer { try? manager.removeItem(at: staging) }
        try manager.createDirectory(at: staging, withIntermediateDirectories: false)
        try handOver(staging.path)
        try create(staging.path)
        try AtomicFile.syncFileSystem(containing: staging.path)
        // Another render's template may have won the race; either is the same cluster.
        if rename(staging.path, folder.path) != 0 && !isMade {
            try SystemCall.retrying("rename", path: folder.path) { rename(staging.path, folder.path) }
        }
    }

    /// Templates of an older schema (a newer one may be another farm's on this machine), and
    /// the folders of makings cut short an hour or more ago.
    private func removeLeftovers(in parent: URL) {
        let manager = FileManager.default
        let schema = Int(folder.lastPathComponent.dropFirst(kind.count)) ?? 0
        let stale = Date().addingTimeInterval(-3600)
        for name in (try? manager.contentsOfDirectory(atPath: parent.path)) ?? [] {
            let url = parent.appendingPathComponent(name)
            if name.hasPrefix(kind), let step = Int(name.dropFirst(kind.count)), step < schema {
                try? manager.removeItem(at: url)
            } else if name.hasPrefix(".\(kind)"),
                let modified = (try? manager.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date,
                modified < stale
            {
                try? manager.removeItem(at: url)
            }
        }
    }

    /// Copies the template to `target`, an empty folder or none: into a folder of its own beside
    /// it first, then renamed over it, so that a copy cut short (a full disk, a killed render)
    /// leaves no half cluster that a later start would take for a whole one, and of two starts
    /// copying at once only one copy lands (the other finds the cluster in place). `copy`
    /// copies a folder, owners and modes kept; `mark` is written into the copy before it lands.
    /// Returns whether this copy landed.
    func copy(to target: URL, mark: String, copy: (String, String) throws -> Void) throws -> Bool {
        let staging = target.deletingLastPathComponent().appendingPathComponent(
            ".\(target.lastPathComponent)-copy-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: staging) }
        try copy(folder.path, staging.path)
        FileManager.default.createFile(atPath: staging.appendingPathComponent(mark).path, contents: Data())
        try AtomicFile.syncFileSystem(containing: staging.path)
        // rename replaces an empty folder; one that another copy filled meanwhile stays.
        return rename(staging.path, target.path) == 0
    }
}
