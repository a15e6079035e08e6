import CFFmpeg
import FarmCore
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A pinned media file read through a custom `AVIOContext`, one whole block at a time.
///
/// The file's stamp is checked against the pin on the open descriptor (what is read is what
/// was checked, not what a path named a moment before): the pinned version, or a copy of the
/// pinned size (`MediaPin.Match`), whose blocks count only where they agree with the pinned
/// version's. Either way the stamp found at the open is checked again after each block is
/// read: a write lands between two blocks, or in one, moves its ctime. Each block is hashed as
/// it comes in (once per process and file version: `BlockDigests`) and its digest recorded in
/// the render's `MediaReads`. The demuxer is served from the block in memory, so a read costs
/// the bytes asked for, rounded out to the block, and one block more per seek.
final class PinnedFile {
    let path: String
    private let descriptor: Int32
    private let size: Int64
    /// The stamp of the file as opened: the pinned version's, or a copy's.
    private let opened: FileStamp
    private let copy: Bool
    private let reads: MediaReads
    private var block: [UInt8] = []
    private var blockIndex: Int64 = -1
    private var position: Int64 = 0

    init(path: String, pin: MediaPin, reads: MediaReads) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw FFmpegError(operation: "cannot open \(path)", message: "cannot read it") }
        // Whole blocks are read on purpose, and the next one asked for ahead only while reading
        // runs on (`load`): the kernel's own read-ahead (8 MiB here) would fetch past a seek.
        _ = posix_fadvise(descriptor, 0, 0, POSIX_FADV_RANDOM)
        guard let stamp = FileStamp(descriptor: descriptor), pin.match(stamp) != .changed else {
            close(descriptor)
            throw reads.changed(path: path)
        }
        self.path = path
        self.descriptor = descriptor
        self.reads = reads
        opened = stamp
        copy = pin.match(stamp) == .copy
        size = stamp.size
    }

    deinit {
        close(descriptor)
    }

    /// Copies up to `count` bytes at the current position into `target`; the number copied,
    /// 0 at the end of the file.
    func read(into target: UnsafeMutablePointer<UInt8>, count: Int) throws -> Int {
        guard position < size, count > 0 else { return 0 }
        let index = position / Int64(MediaReads.blockSize)
        if index != blockIndex { try load(index) }
        let offset = Int(position - index * Int64(MediaReads.blockSize))
        let copied = min(count, block.count - offset)
        block.withUnsafeBufferPointer { target.update(from: $0.baseAddress! + offset, count: copied) }
        position += Int64(copied)
        reads.demuxed(bytes: copied)
        return copied
    }

    /// Moves the position (`whence` as for `lseek`, or `AVSEEK_SIZE` for the size).
    func seek(to offset: Int64, whence: Int32) -> Int64 {
        switch whence & ~Int32(AVSEEK_FORCE) {
        case AVSEEK_SIZE: return size
        case SEEK_SET: position = offset
        case SEEK_CUR: position += offset
        case SEEK_END: position = size + offset
        default: return Int64(cffmpeg_averror(EINVAL))
        }
        return position
    }

    private func load(_ index: Int64) throws {
        let start = index * Int64(MediaReads.blockSize)
        let length = Int(min(Int64(MediaReads.blockSize), size - start))
        let previous = blockIndex
        // The buffer is reused: until the new block is whole and checked, none is held.
        blockIndex = -1
        if block.count != length { block = [UInt8](repeating: 0, count: length) }
        let filled = try block.withUnsafeMutableBytes { block in
            try SystemCall.read(descriptor, into: block, count: length, at: start, path: path)
        }
        // Shorter than its stamp said: the file was cut after it was opened.
        guard filled == length else { throw reads.changed(path: path) }
        guard let stamp = FileStamp(descriptor: descriptor), stamp.isSameVersion(as: opened) else {
            throw reads.changed(path: path)
        }
        let digest = BlockDigests.digest(path: path, version: opened.version, block: index, of: block)
        try reads.read(path: path, block: index, sha256: digest, copy: copy)
        let follows = index == previous + 1 && previous >= 0
        reads.fetched(bytes: length, jump: !follows)
        // Reading runs on: have the next block on its way while the demuxer takes this one.
        if follows { _ = posix_fadvise(descriptor, off_t(start) + off_t(length), off_t(length), POSIX_FADV_WILLNEED) }
        blockIndex = index
    }
}
