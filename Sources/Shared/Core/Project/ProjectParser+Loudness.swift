extension ProjectParser {
    /// `"ebu-r128"`, or `{"standard": "ebu-r128", "integrated": -23, "truePeak": -1,
    /// "tolerance": 0.5, "failIfMissed": true}`: a named target, or one's figures changed, or
    /// figures of its own (then `integrated` and `truePeak` are required).
    func parseLoudness(_ value: JSONValue, _ path: String, _ log: DiagnosticLog) -> LoudnessTarget? {
        if case .string = value {
            return JSONField.choice(LoudnessTarget.Standard.self)(value, path, log)?.target
        }
        guard let object = JSONObjectReader(value, path: path, log: log) else { return nil }
        let standard = object.optional("standard", default: nil) { value, path, log -> LoudnessTarget.Standard?? in
            JSONField.choice(LoudnessTarget.Standard.self)(value, path, log).map { .some($0) }
        }
        let base = standard??.target
        let integrated =
            base.map { object.optional("integrated", default: $0.integrated, JSONField.number) }
            ?? object.required("integrated", JSONField.number)
        let truePeak =
            base.map { object.optional("truePeak", default: $0.truePeak, JSONField.number) }
            ?? object.required("truePeak", JSONField.number)
        let tolerance = object.optional("tolerance", default: base?.tolerance ?? 0.5, JSONField.number)
        let failIfMissed = object.optional("failIfMissed", default: false, JSONField.bool)
        object.rejectUnknownKeys()
        if let integrated, !(-70...0).contains(integrated) {
            log.add(object.childPath("integrated"), "must be from -70 to 0 LUFS (got \(integrated))")
            return nil
        }
        if let truePeak, !(-20...0).contains(truePeak) {
            log.add(object.childPath("truePeak"), "must be from -20 to 0 dBTP (got \(truePeak))")
            return nil
        }
        if let tolerance, !(0.1...10).contains(tolerance) {
            log.add(object.childPath("tolerance"), "must be from 0.1 to 10 LU (got \(tolerance))")
            return nil
        }
        guard let standard, let integrated, let truePeak, let tolerance, let failIfMissed else { return nil }
        return LoudnessTarget(
            integrated: integrated, truePeak: truePeak, tolerance: tolerance, failIfMissed: failIfMissed,
            standard: standard)
    }
}
