import CText
import FarmCore
import Foundation

/// The fonts this machine's fontconfig lists, as one digest: a title is drawn with whatever file
/// its family matches here, so two machines render titles alike only if their fonts agree.
public enum FontInventory {
    /// SHA-256 of every listed font file's path and size, sorted; computed once per process.
    public static let digest: String = {
        guard let config = FcInitLoadConfigAndFonts() else { return SHA256.hex(of: "") }
        defer { FcConfigDestroy(config) }
        var entries: [String] = []
        if let set = FcConfigGetFonts(config, FcSetSystem) {
            for index in 0..<Int(set.pointee.nfont) {
                guard let pattern = set.pointee.fonts[index] else { continue }
                var file: UnsafeMutablePointer<FcChar8>?
                guard FcPatternGetString(pattern, FC_FILE, 0, &file) == FcResultMatch, let file else { continue }
                let path = String(cString: file)
                let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? -1
                entries.append("\(path) \(size)")
            }
        }
        return SHA256.hex(of: entries.sorted().joined(separator: "\n"))
    }()
}
