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
        return project.assets.compactMapValues { FileStamp(path: $0.path) }
    }
}
