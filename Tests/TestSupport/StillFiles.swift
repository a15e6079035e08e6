import Foundation

/// Gives `jpeg` an APP1 EXIF segment holding only Orientation (1 to 8), inserted after its SOI
/// marker, as a phone stores a photo taken sideways.
public func insertEXIFOrientation(_ value: UInt8, into jpeg: URL) throws {
    var bytes = [UInt8](try Data(contentsOf: jpeg))
    guard bytes.starts(with: [0xFF, 0xD8]) else { throw TestError.failed("\(jpeg.lastPathComponent) is no JPEG") }
    let tiff: [UInt8] = [
        0x4D, 0x4D, 0x00, 0x2A, 0x00, 0x00, 0x00, 0x08,  // big-endian TIFF header, IFD at offset 8
        0x00, 0x01,  // one entry
        0x01, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, 0x00, value, 0x00, 0x00,  // Orientation, SHORT, 1
        0x00, 0x00, 0x00, 0x00,  // no next IFD
    ]
    let payload = Array("Exif".utf8) + [0, 0] + tiff
    let length = payload.count + 2
    bytes.insert(contentsOf: [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload, at: 2)
    try Data(bytes).write(to: jpeg)
}
