import FarmCore
import Foundation

extension ProjectLoader {
    /// Each asset's stamp as its file is now, for a job's project text: what `farm retry`
    /// pins again when a file changed. Assets this machine cannot see keep their pins (absent).
    public static func currentStamps(text: String, file: String, mediaRoot: String) -> [String: FileStamp] {
        guard
            let project = try? ProjectLoader(mediaRoot: URL(fileURLWithPath: mediaRoot), confined: false)
                .parse(text: text, file: file)
        else { return [:] }
        return project.assets.compactMapValues { FileStamp(asset: $0) }
    }
}

extension ProjectLoader {
    /// Each asset's path, by id, as a job's project text names it on this machine: where the
    /// coordinator reads the pinned versions a copy's blocks are checked against. Empty if the
    /// text no longer parses.
    public static func assetPaths(text: String, file: String, mediaRoot: String) -> [String: String] {
        guard
            let project = try? ProjectLoader(mediaRoot: URL(fileURLWithPath: mediaRoot), confined: false)
                .parse(text: text, file: file)
        else { return [:] }
        return project.assets.mapValues(\.path)
    }
}
