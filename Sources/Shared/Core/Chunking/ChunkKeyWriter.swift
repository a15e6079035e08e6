/// Hashes chunk materials (`ChunkMaterial`) into keys, encoding what chunks share only once.
///
/// A clip plays in every chunk it spans, the same but for its start (relative to each chunk)
/// and its length (cut off where each chunk ends); the settings, each track's own fields and
/// the media a set of assets names are the same in every chunk. So a key is the SHA-256 of a
/// fixed sequence of parts, each the `CanonicalEncoder` bytes of one value (tagged and
/// length-prefixed, so the sequence reads one way only), and the parts chunks share are
/// encoded once and remembered:
///
///     settings · range · track count · per track: (fields · item count · per item:
///     (the item with its times at 0 · its start, duration and source duration) · transitions)
///     · media
///
/// One writer serves one project's chunks of one kind (`ChunkKeys.keys`): what it remembers is
/// keyed by where it is in that project.
final class ChunkKeyWriter {
    /// The material's fields that every chunk of one `keys` call shares.
    private struct Settings: Encodable {
        var renderer: Int
        var kind: ChunkKind
        var output: OutputSettings
        var export: ExportSettings
        var container: ExportSettings.Container
    }

    private struct Range: Encodable {
        var start: Int64
        var end: Int64
        var endsTimeline: Bool
    }

    private struct TrackFields: Encodable {
        var kind: Track.Kind
        var opacity: Double
        var hidden: Bool
        var transform: Transform
        var grade: ColourGrade?
    }

    /// The times a chunk shifts (`at`) and cuts (`duration`, `sourceDuration`); the rest of an
    /// item is the same in every chunk.
    private struct ItemTimes: Encodable {
        var at: Rational
        var duration: Rational
        var sourceDuration: Rational
    }

    /// An item by its place in the project.
    private struct ItemPlace: Hashable {
        var track: Int
        var item: Int
    }

    private var settings: (Settings, [UInt8])?
    private var tracks: [Int: [UInt8]] = [:]
    private var items: [ItemPlace: [UInt8]] = [:]
    /// By the assets' ids, in order: their paths and pins are the project's.
    private var media: [[String]: [UInt8]] = [:]

    func key(_ material: ChunkMaterial) -> String {
        // Zipped below: a track or item left out would be left out of the key.
        precondition(material.trackIndices.count == material.tracks.count, "a material's tracks and their places")
        var bytes = settingsBytes(material)
        CanonicalEncoder.append(
            Range(start: material.start, end: material.end, endsTimeline: material.endsTimeline), to: &bytes)
        CanonicalEncoder.append(material.tracks.count, to: &bytes)
        for (track, slice) in zip(material.trackIndices, material.tracks) {
            bytes += trackBytes(slice, track: track)
            CanonicalEncoder.append(slice.items.count, to: &bytes)
            precondition(slice.itemIndices.count == slice.items.count, "a track slice's items and their places")
            for (index, item) in zip(slice.itemIndices, slice.items) {
                bytes += itemBytes(item, place: ItemPlace(track: track, item: index))
                CanonicalEncoder.append(
                    ItemTimes(at: item.at, duration: item.duration, sourceDuration: item.sourceDuration), to: &bytes)
            }
            CanonicalEncoder.append(slice.transitions, to: &bytes)
        }
        bytes += mediaBytes(material.media)
        let hasher = SHA256()
        hasher.update(bytes)
        return hasher.finish()
    }

    private func settingsBytes(_ material: ChunkMaterial) -> [UInt8] {
        let current = Settings(
            renderer: material.renderer, kind: material.kind, output: material.output, export: material.export,
            container: material.container)
        // Compared, not assumed: the same settings are re-encoded only if they ever differ.
        if let settings, settings.0.renderer == current.renderer, settings.0.kind == current.kind,
            settings.0.output == current.output, settings.0.export == current.export,
            settings.0.container == current.container
        {
            return settings.1
        }
        let bytes = CanonicalEncoder.bytes(of: current)
        settings = (current, bytes)
        return bytes
    }

    private func trackBytes(_ slice: ChunkMaterial.TrackSlice, track: Int) -> [UInt8] {
        if let bytes = tracks[track] { return bytes }
        let bytes = CanonicalEncoder.bytes(
            of: TrackFields(
                kind: slice.kind, opacity: slice.opacity, hidden: slice.hidden, transform: slice.transform,
                grade: slice.grade))
        tracks[track] = bytes
        return bytes
    }

    private func itemBytes(_ item: Item, place: ItemPlace) -> [UInt8] {
        if let bytes = items[place] { return bytes }
        var timeless = item
        timeless.at = Rational(0)
        timeless.duration = Rational(0)
        timeless.sourceDuration = Rational(0)
        let bytes = CanonicalEncoder.bytes(of: timeless)
        items[place] = bytes
        return bytes
    }

    private func mediaBytes(_ assets: [String: ChunkMaterial.Media]) -> [UInt8] {
        let ids = assets.keys.sorted()
        if let bytes = media[ids] { return bytes }
        let bytes = CanonicalEncoder.bytes(of: assets)
        media[ids] = bytes
        return bytes
    }
}
