import CFFmpeg

/// The colour an output's pictures are in, written as tags (range, matrix, primaries, transfer)
/// on the encoder and again on every stream a join copies: a segment's container may not keep
/// them all (MOV keeps no range for FFV1), and a file whose tags are missing is shown by guess.
public struct VideoColour: Sendable, Hashable {
    let range: AVColorRange
    let matrix: AVColorSpace
    let primaries: AVColorPrimaries
    let transfer: AVColorTransferCharacteristic

    /// Limited-range BT.709: what the compositor's 8-bit canvas holds.
    public static let bt709 = VideoColour(
        range: AVCOL_RANGE_MPEG, matrix: AVCOL_SPC_BT709, primaries: AVCOL_PRI_BT709, transfer: AVCOL_TRC_BT709)

    func tag(_ context: UnsafeMutablePointer<AVCodecContext>) {
        context.pointee.color_range = range
        context.pointee.colorspace = matrix
        context.pointee.color_primaries = primaries
        context.pointee.color_trc = transfer
    }

    func tag(_ frame: UnsafeMutablePointer<AVFrame>) {
        frame.pointee.color_range = range
        frame.pointee.colorspace = matrix
        frame.pointee.color_primaries = primaries
        frame.pointee.color_trc = transfer
    }

    func tag(_ parameters: UnsafeMutablePointer<AVCodecParameters>) {
        parameters.pointee.color_range = range
        parameters.pointee.color_space = matrix
        parameters.pointee.color_primaries = primaries
        parameters.pointee.color_trc = transfer
    }
}
