import CFFmpeg
import FarmCore

/// The `AVIOContext` a demuxer reads a `PinnedFile` through. FFmpeg sees only error codes from
/// the callbacks; the error behind one is kept in `failure` for the reader to throw.
final class PinnedIO {
    /// FFmpeg's own read-ahead buffer; reads past it come from the file's block in memory.
    private static let bufferSize = 64 << 10
    let file: PinnedFile
    let context: UnsafeMutablePointer<AVIOContext>
    private(set) var failure: Error?

    init(_ file: PinnedFile) throws {
        guard let buffer = av_malloc(Self.bufferSize)?.assumingMemoryBound(to: UInt8.self) else {
            throw FFmpegError(operation: "open \(file.path)", message: "out of memory")
        }
        self.file = file
        guard let context = avio_alloc_context(buffer, Int32(Self.bufferSize), 0, nil, readPacket, nil, seekTo) else {
            av_free(buffer)
            throw FFmpegError(operation: "open \(file.path)", message: "out of memory")
        }
        self.context = context
        context.pointee.opaque = Unmanaged.passUnretained(self).toOpaque()
    }

    /// The I/O context for `path` if `reads` pins it; nil reads the file as it is.
    static func open(_ path: String, reads: MediaReads?) throws -> PinnedIO? {
        guard let reads, let pin = reads.pin(ofPath: path) else { return nil }
        return try PinnedIO(PinnedFile(path: path, pin: pin, reads: reads))
    }

    deinit {
        // The buffer may have been replaced by FFmpeg; free the one the context holds now.
        av_freep(&context.pointee.buffer)
        var owned: UnsafeMutablePointer<AVIOContext>? = context
        avio_context_free(&owned)
    }

    fileprivate static func from(_ opaque: UnsafeMutableRawPointer?) -> PinnedIO {
        Unmanaged<PinnedIO>.fromOpaque(opaque!).takeUnretainedValue()
    }

    fileprivate func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int32) -> Int32 {
        do {
            let copied = try file.read(into: buffer, count: Int(count))
            return copied == 0 ? FFmpegError.eof : Int32(copied)
        } catch {
            failure = failure ?? error
            return cffmpeg_averror(EIO)
        }
    }
}

private func readPacket(_ opaque: UnsafeMutableRawPointer?, _ buffer: UnsafeMutablePointer<UInt8>?, _ count: Int32)
    -> Int32
{
    PinnedIO.from(opaque).read(into: buffer!, count: count)
}

private func seekTo(_ opaque: UnsafeMutableRawPointer?, _ offset: Int64, _ whence: Int32) -> Int64 {
    PinnedIO.from(opaque).file.seek(to: offset, whence: whence)
}
