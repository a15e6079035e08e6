import Foundation

/// The `grade` key of an item, a video track or the output: `{"cdl": {...}, "lut": "file.cube"}`.
extension ProjectParser {
    func parseGrade(_ value: JSONValue, _ path: String, _ log: DiagnosticLog) -> ColourGrade? {
        guard let object = JSONObjectReader(value, path: path, log: log) else { return nil }
        let lut = object.optional("lut", default: nil) { value, path, log -> LUTReference?? in
            guard let file = JSONField.string(value, path, log) else { return nil }
            guard !file.isEmpty else {
                log.add(path, "is empty")
                return nil
            }
            // Resolved as asset paths are; the loader confines, reads and hashes it.
            let url = file.hasPrefix("/") ? URL(fileURLWithPath: file) : mediaRoot.appendingPathComponent(file)
            return LUTReference(path: url.standardizedFileURL.path)
        }
        let cdl = object.optional("cdl", default: nil) { value, path, log -> ColourDecision?? in
            parseDecision(value, path, log).map { Optional($0) }
        }
        object.rejectUnknownKeys()
        guard let lut, let cdl else { return nil }
        guard lut != nil || cdl != nil else {
            log.add(path, "a grade needs \"cdl\", \"lut\" or both")
            return nil
        }
        return ColourGrade(cdl: cdl, lut: lut)
    }

    /// `{"slope": [r, g, b], "offset": [...], "power": [...], "saturation": s}`, each optional.
    private func parseDecision(_ value: JSONValue, _ path: String, _ log: DiagnosticLog) -> ColourDecision? {
        guard let object = JSONObjectReader(value, path: path, log: log) else { return nil }
        func triple(_ key: String, _ fallback: Double, _ allowed: ClosedRange<Double>, _ what: String) -> [Double]? {
            object.optional(key, default: [fallback, fallback, fallback]) { value, path, log -> [Double]? in
                guard case .array(let elements) = value, elements.count == 3 else {
                    let got: String
                    if case .array(let elements) = value {
                        got = "\(elements.count) values"
                    } else {
                        got = JSONField.describe(value)
                    }
                    log.add(path, "expected three numbers [red, green, blue], got \(got)")
                    return nil
                }
                let numbers = elements.enumerated().compactMap { JSONField.number($1, "\(path)[\($0)]", log) }
                guard numbers.count == 3 else { return nil }
                guard numbers.allSatisfy({ allowed.contains($0) }) else {
                    log.add(path, "\(what) (got \(numbers.map(Self.shown).joined(separator: ", ")))")
                    return nil
                }
                return numbers
            }
        }
        let slope = triple("slope", 1, 0...1000, "each slope must be from 0 to 1000")
        let offset = triple("offset", 0, -1000...1000, "each offset must be from -1000 to 1000")
        let power = triple("power", 1, 0...1000, "each power must be from 0 to 1000")
        let saturation = object.optional("saturation", default: 1) { value, path, log -> Double? in
            guard let number = JSONField.number(value, path, log) else { return nil }
            guard (0...1000).contains(number) else {
                log.add(path, "must be from 0 to 1000 (got \(Self.shown(number)))")
                return nil
            }
            return number
        }
        object.rejectUnknownKeys()
        guard let slope, let offset, let power, let saturation else { return nil }
        return ColourDecision(slope: slope, offset: offset, power: power, saturation: saturation)
    }

    /// A number as written: `-1`, not `-1.0`.
    private static func shown(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : "\(value)"
    }
}
