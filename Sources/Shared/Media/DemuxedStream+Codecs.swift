import CFFmpeg
import Foundation

extension DemuxedStream {
    /// The stream's codec as RFC 6381 names it for an HLS `CODECS` attribute or an MSE type
    /// (`avc1.64001f`, `hvc1.1.6.L93.B0`, `av01.0.05M.08`, `mp4a.40.2`), read from the
    /// configuration record the stream carries; nil for a codec HLS does not carry.
    public var codecString: String? {
        let parameters = stream.pointee.codecpar.pointee
        let extra =
            parameters.extradata.map { Array(UnsafeBufferPointer(start: $0, count: Int(parameters.extradata_size))) }
            ?? []
        switch parameters.codec_id {
        case AV_CODEC_ID_H264: return Self.avcString(extra)
        case AV_CODEC_ID_HEVC: return Self.hevcString(extra)
        case AV_CODEC_ID_AV1: return Self.av1String(extra)
        case AV_CODEC_ID_AAC:
            // The AudioSpecificConfig's first five bits are the object type (2: AAC LC).
            let objectType = extra.first.map { Int($0 >> 3) } ?? 2
            return "mp4a.40.\(objectType)"
        default: return nil
        }
    }

    /// avcC: profile, constraint flags and level, the bytes after its version.
    package static func avcString(_ record: [UInt8]) -> String? {
        if record.count >= 4, record[0] == 1 {
            return String(format: "avc1.%02x%02x%02x", record[1], record[2], record[3])
        }
        // Annex B (a start code before the SPS): the three bytes after the SPS's NAL header.
        guard let unit = annexBUnits(record).first(where: { ($0.first ?? 0) & 0x1f == 7 }), unit.count >= 4 else {
            return nil
        }
        let sps = Array(unit)
        return String(format: "avc1.%02x%02x%02x", sps[1], sps[2], sps[3])
    }

    /// hvcC: profile space and idc, compatibility flags (bits reversed), tier and level, and
    /// the constraint bytes without their trailing zeros (ISO/IEC 14496-15, annex E).
    package static func hevcString(_ record: [UInt8]) -> String? {
        guard record.count >= 13, record[0] == 1 else { return nil }
        let space = ["", "A", "B", "C"][Int(record[1] >> 6)]
        let tier = (record[1] >> 5) & 1 == 1 ? "H" : "L"
        let profile = record[1] & 0x1f
        let flags = record[2...5].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        var reversed: UInt32 = 0
        for bit in 0..<32 where flags & (1 << bit) != 0 { reversed |= 1 << (31 - bit) }
        var constraints = Array(record[6...11])
        while let last = constraints.last, last == 0 { constraints.removeLast() }
        let text = "hvc1.\(space)\(profile).\(String(reversed, radix: 16, uppercase: true)).\(tier)\(record[12])"
        return text + constraints.map { "." + String($0, radix: 16, uppercase: true) }.joined()
    }

    /// av1C: profile, level and tier, and bit depth.
    package static func av1String(_ record: [UInt8]) -> String? {
        guard record.count >= 4, record[0] & 0x7f == 1 else { return nil }
        let profile = record[1] >> 5
        let level = record[1] & 0x1f
        let tier = record[2] >> 7 == 1 ? "H" : "M"
        let high = (record[2] >> 6) & 1 == 1
        let twelve = (record[2] >> 5) & 1 == 1
        let depth = high ? (profile == 2 && twelve ? 12 : 10) : 8
        return "av01.\(profile).\(String(format: "%02d", level))\(tier).\(String(format: "%02d", depth))"
    }

    private static func annexBUnits(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var units: [ArraySlice<UInt8>] = []
        var start: Int?
        var index = 0
        while index + 2 < bytes.count {
            if bytes[index] == 0, bytes[index + 1] == 0, bytes[index + 2] == 1 {
                if let start { units.append(bytes[start..<index]) }
                index += 3
                start = index
            } else {
                index += 1
            }
        }
        if let start { units.append(bytes[start...]) }
        return units.map { unit in
            var trimmed = unit
            while let last = trimmed.last, last == 0 { trimmed.removeLast() }
            return trimmed
        }
    }
}
