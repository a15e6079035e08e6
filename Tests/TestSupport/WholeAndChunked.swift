import FarmCore
import FarmRender
import Foundation

/// Renders `loaded` whole (`LocalRender`, what `farm render --local` runs) and in chunks of
/// `seconds`, each rendered alone and joined (`ChunkedRender`, what workers and the coordinator
/// run), to `whole.EXT` and `chunked.EXT` in `directory`.
public func renderWholeAndChunked(_ loaded: LoadedProject, in directory: URL, ext: String, seconds: Rational) throws
    -> (whole: URL, chunked: URL)
{
    let whole = directory.appendingPathComponent("whole.\(ext)")
    try LocalRender(loaded: loaded).render(frames: 0..<loaded.project.frameCount, to: whole)
    let parts = directory.appendingPathComponent("parts-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: parts, withIntermediateDirectories: true)
    let chunked = directory.appendingPathComponent("chunked.\(ext)")
    try ChunkedRender(loaded: loaded, workDirectory: parts).renderAll(size: .seconds(seconds), to: chunked)
    return (whole, chunked)
}
