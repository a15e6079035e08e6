import FarmCore
import FarmRender
import FarmStore

/// The assets a failed render found as copies, held against their pins as the coordinator sees
/// the files the job was submitted with. A file replaced after submission by one of the same
/// size reads as a copy on every worker and fails there however it fails (a decoder that
/// cannot open it); here it is what it is: media changed since the job was submitted.
/// One `stat` per named asset; the job's project is read only when a failure names some.
struct ChangedOriginals {
    let store: FarmStore

    /// The first of `assets` (of the job `key` renders) whose file no longer admits its pin;
    /// nil when each is the pinned version, or cannot be seen from here.
    func changed(among assets: [String], of key: AttemptKey) throws -> MediaChangedError? {
        guard !assets.isEmpty, let chunk = try store.current(key), let project = try store.projectOf(job: chunk.job)
        else { return nil }
        let pins = try store.mediaPins(ofJob: chunk.job)
        let paths = ProjectLoader.assetPaths(text: project.text, file: project.file, mediaRoot: project.mediaRoot)
        for asset in assets {
            guard let pin = pins[asset], pin.stamp != nil, let path = paths[asset], let now = FileStamp(path: path)
            else { continue }
            if !pin.admits(now) { return MediaChangedError(asset: asset, path: path) }
        }
        return nil
    }
}
