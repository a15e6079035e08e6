/// Writes a `JSONValue` as indented JSON text: numbers as their literal text, keys in order.
public enum JSONWriter {
    public static func pretty(_ value: JSONValue) -> String {
        var out = ""
        write(value, indent: "", into: &out)
        return out + "\n"
    }

    private static func write(_ value: JSONValue, indent: String, into out: inout String) {
        switch value {
        case .null: out += "null"
        case .bool(let flag): out += flag ? "true" : "false"
        case .number(let text): out += text
        case .string(let text): quote(text, into: &out)
        case .array(let values):
            list(values, open: "[", close: "]", indent: indent, into: &out) { element, out in
                write(element, indent: indent + "  ", into: &out)
            }
        case .object(let members):
            list(members, open: "{", close: "}", indent: indent, into: &out) { member, out in
                quote(member.key, into: &out)
                out += ": "
                write(member.value, indent: indent + "  ", into: &out)
            }
        }
    }

    /// `open`, one element per line indented a step further, `close`; `[]` or `{}` when empty.
    private static func list<T>(
        _ elements: [T], open: String, close: String, indent: String, into out: inout String,
        element: (T, inout String) -> Void
    ) {
        guard !elements.isEmpty else {
            out += open + close
            return
        }
        out += open + "\n"
        for (index, value) in elements.enumerated() {
            out += indent + "  "
            element(value, &out)
            out += index == elements.count - 1 ? "\n" : ",\n"
        }
        out += indent + close
    }

    private static func quote(_ text: String, into out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let c where c.value < 0x20:
                let hex = String(c.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
