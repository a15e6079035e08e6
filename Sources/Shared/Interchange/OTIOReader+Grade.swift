import FarmCore

/// A clip's ASC CDL as OpenTimelineIO carries it from an EDL: the cmx_3600 adapter reads
/// `*ASC_SOP` and `*ASC_SAT` comments into `metadata.cdl` as
/// `{"asc_sop": {"slope": [r, g, b], "offset": [...], "power": [...]}, "asc_sat": s}`.
extension OTIOReader {
    /// The item's `grade` for the clip's CDL; nil when it has none, or (with a note) one the farm
    /// cannot read.
    func grade(of clip: OTIOObject) -> JSONValue? {
        guard case .object(let metadata)? = clip.raw("metadata"),
            let cdl = metadata.first(where: { $0.key == "cdl" })?.value
        else { return nil }
        func member(_ object: JSONValue?, _ key: String) -> JSONValue? {
            guard case .object(let members)? = object else { return nil }
            return members.first { $0.key == key }?.value
        }
        let sop = member(cdl, "asc_sop")
        var decision: [(key: String, value: JSONValue)] = []
        for key in ["slope", "offset", "power"] {
            guard let value = member(sop, key) else { continue }
            guard case .array(let numbers) = value, numbers.count == 3,
                numbers.allSatisfy({ if case .number = $0 { true } else { false } })
            else {
                note(clip.path, "\(clip.label): metadata.cdl.asc_sop.\(key) is not three numbers; not graded")
                return nil
            }
            decision.append((key, value))
        }
        if let saturation = member(cdl, "asc_sat") {
            guard case .number = saturation else {
                note(clip.path, "\(clip.label): metadata.cdl.asc_sat is not a number; not graded")
                return nil
            }
            decision.append(("saturation", saturation))
        }
        guard !decision.isEmpty else { return nil }
        return .object([("cdl", .object(decision))])
    }
}
