import Foundation

/// Bytes of the regular files in a folder, its subfolders included: what a job's segments or
/// an HLS package hold on disk.
public enum FolderSize {
    public static func bytes(of folder: URL) -> Int64 {
        guard
            let files = FileManager.default.enumerator(
                at: folder, includingPropertiesForKeys: [.fileSizeKey, .isRegularFileKey])
        else { return 0 }
        var total: Int64 = 0
        for case let file as URL in files {
            let values = try? file.resourceValues(forKeys: [.fileSizeKey, .isRegularFileKey])
            if values?.isRegularFile == true { total += Int64(values?.fileSize ?? 0) }
        }
        return total
    }
}
