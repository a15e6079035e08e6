extension JobSubmission {
    /// The longest name a job may be given, in Unicode scalars (as JSON Schema's `maxLength`
    /// counts): it is one cell of `farm status`'s table.
    public static let nameLimit = 200

    /// Why `name` cannot name a job, or nil: it must hold more than spaces, be at most
    /// `nameLimit` long and hold no control characters (it is printed on terminals).
    public static func nameProblem(_ name: String) -> String? {
        if name.allSatisfy(\.isWhitespace) { return "must not be empty" }
        if name.unicodeScalars.count > nameLimit {
            return "must be at most \(nameLimit) characters (got \(name.unicodeScalars.count))"
        }
        if let control = name.unicodeScalars.first(where: { $0.properties.generalCategory == .control }) {
            let hex = String(control.value, radix: 16, uppercase: true)
            return "must not hold control characters (U+\(String(repeating: "0", count: max(0, 4 - hex.count)) + hex))"
        }
        return nil
    }
}
