import Foundation

// EmbedFilesTool OUTPUT.swift FILE...: writes `enum EmbeddedFiles` with one `static let` per
// file holding its text, named after the file (`index.html` → `indexHTML`). Run by the
// EmbedFiles plugin at build time.

/// A Swift string literal of `text`, in ASCII: what is not printable ASCII is escaped.
func literal(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\\": out += "\\\\"
        case "\"": out += "\\\""
        case "\n": out += "\\n"
        case "\t": out += "\\t"
        case " "..."~": out.unicodeScalars.append(scalar)
        default: out += "\\u{\(String(scalar.value, radix: 16))}"
        }
    }
    return out + "\""
}

/// `dashboard.css` → `dashboardCSS`: the name's words in lower camel case, the extension in capitals.
func propertyName(_ file: String) -> String {
    let url = URL(fileURLWithPath: file)
    let words = url.deletingPathExtension().lastPathComponent.split { !$0.isLetter && !$0.isNumber }
    let name = words.enumerated().map { $0.offset == 0 ? $0.element.lowercased() : $0.element.capitalized }.joined()
    return name + url.pathExtension.uppercased()
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("EmbedFilesTool: \(message)\n".utf8))
    exit(1)
}

let arguments = CommandLine.arguments.dropFirst()
guard let output = arguments.first else { fail("usage: EmbedFilesTool OUTPUT.swift FILE...") }
var declarations: [String: String] = [:]
for file in arguments.dropFirst() {
    guard let bytes = FileManager.default.contents(atPath: file) else { fail("cannot read \(file)") }
    let text = String(decoding: bytes, as: UTF8.self)
    guard Array(text.utf8) == Array(bytes) else { fail("\(file) is not UTF-8 text") }
    let name = propertyName(file)
    guard declarations[name] == nil, let first = name.first, first.isLetter else {
        fail("\(file) makes the name \(name), taken or not a Swift name")
    }
    declarations[name] =
        "    /// \(URL(fileURLWithPath: file).lastPathComponent)\n    static let \(name) = \(literal(text))\n"
}
let source =
    "// Made by the EmbedFiles plugin from the target's web files at build time: edit those.\n"
    + "enum EmbeddedFiles {\n" + declarations.keys.sorted().map { declarations[$0]! }.joined(separator: "\n") + "}\n"
do {
    try Data(source.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
} catch {
    fail("cannot write \(output): \(error)")
}
