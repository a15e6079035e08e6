/// Bytes read from a pipe, handed out a line at a time. Each byte is searched for a newline
/// once, however many reads a long line takes: searching the whole buffer after every read
/// made a 10 MB answer cost gigabytes of comparisons.
package struct LineBuffer {
    private var bytes: [UInt8] = []
    /// Bytes before this index are known to hold no newline.
    private var searched = 0
    /// Bytes looked at in search of a newline, over the buffer's life (each once).
    package private(set) var examined = 0

    package init() {}

    package var isEmpty: Bool { bytes.isEmpty }

    package mutating func append(_ chunk: ArraySlice<UInt8>) { bytes += chunk }

    /// The next complete line without its newline; nil until one has arrived.
    package mutating func nextLine() -> [UInt8]? {
        guard let newline = bytes[searched...].firstIndex(of: UInt8(ascii: "\n")) else {
            examined += bytes.count - searched
            searched = bytes.count
            return nil
        }
        examined += newline + 1 - searched
        let line = Array(bytes[..<newline])
        bytes.removeSubrange(...newline)
        searched = 0
        return line
    }

    mutating func removeAll() {
        bytes = []
        searched = 0
    }
}
