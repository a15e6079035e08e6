/// Array literals for parameters (`$1::bigint[]`), so a statement can take a whole batch:
/// one round trip for a thousand rows instead of a thousand.
public enum PostgresArray {
    public static func integers<T: BinaryInteger>(_ values: [T]) -> String {
        "{" + values.map { String($0) }.joined(separator: ",") + "}"
    }

    /// Every element quoted, with `"` and `\` escaped, so any text survives.
    public static func text(_ values: [String]) -> String {
        let quoted = values.map { value in
            "\"" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                + "\""
        }
        return "{" + quoted.joined(separator: ",") + "}"
    }
}
