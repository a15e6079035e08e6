#ifndef CFFMPEG_SHIM_H
#define CFFMPEG_SHIM_H

#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/cpu.h>
#include <libavutil/display.h>
#include <libavutil/error.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libavutil/samplefmt.h>
#include <libavutil/sha.h>
#include <libswresample/swresample.h>
#include <libswscale/swscale.h>

// AVERROR() is a macro over errno values; Swift cannot import function-like macros.
static inline int cffmpeg_averror(int errnum) { return AVERROR(errnum); }

// AVERROR_EOF is built with FFERRTAG(), a macro Swift cannot import.
static inline int cffmpeg_averror_eof(void) { return AVERROR_EOF; }

// AV_NOPTS_VALUE is a cast expression macro that Swift does not import.
static inline int64_t cffmpeg_nopts(void) { return AV_NOPTS_VALUE; }

// AVERROR_INVALIDDATA is built with FFERRTAG(), a macro Swift cannot import.
static inline int cffmpeg_averror_invalid_data(void) { return AVERROR_INVALIDDATA; }

// AVERROR_DECODER_NOT_FOUND is built with FFERRTAG(), a macro Swift cannot import.
static inline int cffmpeg_averror_decoder_not_found(void) { return AVERROR_DECODER_NOT_FOUND; }

// av_err2str() is a macro using a compound literal; this fills a caller buffer instead.
static inline void cffmpeg_strerror(int code, char *buffer, size_t size) { av_strerror(code, buffer, size); }

// The stream's display matrix (rotation metadata), or NULL. FFmpeg 6.1 moved stream side data
// into codecpar and deprecated av_stream_get_side_data (removed in 7); older builds only have that.
static inline const int32_t *cffmpeg_display_matrix(const AVStream *stream) {
#if LIBAVCODEC_VERSION_INT >= AV_VERSION_INT(60, 30, 100)
    const AVPacketSideData *side = av_packet_side_data_get(
        stream->codecpar->coded_side_data, stream->codecpar->nb_coded_side_data, AV_PKT_DATA_DISPLAYMATRIX);
    return side ? (const int32_t *)side->data : NULL;
#else
    return (const int32_t *)av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, NULL);
#endif

}

// Whether a decoded frame is a keyframe: a flag since FFmpeg 6.1, a field before.
static inline int cffmpeg_frame_is_key(const AVFrame *frame) {
#if LIBAVUTIL_VERSION_INT >= AV_VERSION_INT(58, 29, 100)
    return (frame->flags & AV_FRAME_FLAG_KEY) != 0;
#else
    return frame->key_frame != 0;
#endif
}

#endif
