import Foundation

/// Files that real phones, cameras, browsers, broadcast chains and editors wrote, kept beside the
/// repository in `../shared/wild/` (its SOURCES.tsv names each one's origin and licence). They
/// may not be committed, so the tests that read them skip, saying so, where the folder is absent.
public enum WildFiles {
    /// `FARM_WILD`, or `shared/wild` beside the repository's folder.
    public static let folder: URL? = {
        let environment = ProcessInfo.processInfo.environment["FARM_WILD"]
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let url =
            environment.map { URL(fileURLWithPath: $0) }
            ?? repository.deletingLastPathComponent().appendingPathComponent("shared/wild")
        var isFolder: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) && isFolder.boolValue
            ? url : nil
    }()

    /// Why a test of these files did not run.
    public static let absent =
        "../shared/wild (or FARM_WILD) is absent: the files real devices wrote are not in the repository"

    /// The media files, by name (`wild/media`), or none where the folder is absent.
    public static var media: [String] { names(in: "media") }

    /// The editors' timelines (`wild/timelines`), as "FOLDER/NAME" by the editor or adapter
    /// that wrote them, or none where the folder is absent.
    public static var timelines: [String] {
        names(in: "timelines").flatMap { folder in names(in: "timelines/\(folder)").map { "\(folder)/\($0)" } }
    }

    public static func url(of name: String, in subfolder: String = "media") -> URL {
        folder!.appendingPathComponent(subfolder).appendingPathComponent(name)
    }

    static func names(in subfolder: String) -> [String] {
        guard let folder else { return [] }
        let names = try? FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent(subfolder).path)
        return (names ?? []).filter { !$0.hasPrefix(".") }.sorted()
    }
}
