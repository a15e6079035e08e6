/// OpenTimelineIO documents as OTIO writes them (JSON text), for tests of `farm import`.
public enum OTIODocument {
    public static func time(_ value: Int, _ rate: String) -> String {
        #"{"OTIO_SCHEMA": "RationalTime.1", "rate": \#(rate), "value": \#(value)}"#
    }

    public static func range(_ start: Int, _ duration: Int, _ rate: String) -> String {
        #"""
        {"OTIO_SCHEMA": "TimeRange.1", "duration": \#(time(duration, rate)),
         "start_time": \#(time(start, rate))}
        """#
    }

    /// A `Clip.2` of an `ExternalReference` to `url`, `source` in frames at `rate`.
    public static func clip(
        _ name: String, _ url: String, source: (Int, Int), available: (Int, Int)? = nil, rate: String = "24",
        effects: [String] = [], markers: [String] = []
    ) -> String {
        let availableRange = available.map { range($0.0, $0.1, rate) } ?? "null"
        let escaped = url.replacingOccurrences(of: "\\", with: "\\\\")
        return #"""
            {"OTIO_SCHEMA": "Clip.2", "metadata": {}, "name": "\#(name)",
             "source_range": \#(range(source.0, source.1, rate)),
             "effects": [\#(effects.joined(separator: ", "))],
             "markers": [\#(markers.joined(separator: ", "))], "enabled": true,
             "media_references": {"DEFAULT_MEDIA": {"OTIO_SCHEMA": "ExternalReference.1", "metadata": {},
               "name": "", "available_range": \#(availableRange), "target_url": "\#(escaped)"}},
             "active_media_reference_key": "DEFAULT_MEDIA"}
            """#
    }

    /// A `Clip.2` whose active reference is `reference` (any media reference's JSON).
    public static func clip(_ name: String, reference: String, source: (Int, Int)) -> String {
        #"""
        {"OTIO_SCHEMA": "Clip.2", "name": "\#(name)", "source_range": \#(range(source.0, source.1, "24")),
         "media_references": {"DEFAULT_MEDIA": \#(reference)}, "active_media_reference_key": "DEFAULT_MEDIA"}
        """#
    }

    public static func gap(_ frames: Int, _ rate: String = "24") -> String {
        #"{"OTIO_SCHEMA": "Gap.1", "name": "", "source_range": \#(range(0, frames, rate))}"#
    }

    public static func transition(in inFrames: Int, out outFrames: Int, type: String = "SMPTE_Dissolve") -> String {
        #"""
        {"OTIO_SCHEMA": "Transition.1", "name": "", "in_offset": \#(time(inFrames, "24")),
         "out_offset": \#(time(outFrames, "24")), "transition_type": "\#(type)"}
        """#
    }

    public static func warp(_ scalar: String) -> String {
        #"{"OTIO_SCHEMA": "LinearTimeWarp.1", "effect_name": "LinearTimeWarp", "time_scalar": \#(scalar)}"#
    }

    public static func freezeFrame() -> String {
        #"{"OTIO_SCHEMA": "FreezeFrame.1", "effect_name": "FreezeFrame", "time_scalar": 0.0}"#
    }

    public static func marker(_ name: String) -> String {
        #"{"OTIO_SCHEMA": "Marker.2", "name": "\#(name)", "marked_range": \#(range(0, 1, "24"))}"#
    }

    public static func track(
        _ kind: String, _ name: String, _ children: [String], source: (Int, Int)? = nil, enabled: Bool = true
    ) -> String {
        let sourceRange = source.map { range($0.0, $0.1, "24") } ?? "null"
        return #"""
            {"OTIO_SCHEMA": "Track.1", "name": "\#(name)", "source_range": \#(sourceRange), "enabled": \#(enabled),
             "children": [\#(children.joined(separator: ", "))], "kind": "\#(kind)"}
            """#
    }

    public static func stack(_ children: [String], source: (Int, Int)? = nil) -> String {
        let sourceRange = source.map { range($0.0, $0.1, "24") } ?? "null"
        return #"""
            {"OTIO_SCHEMA": "Stack.1", "name": "compound", "source_range": \#(sourceRange),
             "children": [\#(children.joined(separator: ", "))]}
            """#
    }

    public static func timeline(_ tracks: [String], rate: String) -> String {
        #"""
        {"OTIO_SCHEMA": "Timeline.1", "name": "cut", "global_start_time": \#(time(0, rate)),
         "tracks": \#(stack(tracks))}
        """#
    }
}
