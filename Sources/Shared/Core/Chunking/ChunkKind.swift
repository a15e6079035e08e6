/// What a chunk renders: a range of video frames, an audio block of the job's sound, or an
/// audio block's first pass for a loudness target (`loudness`: its programme figures, no sound).
public enum ChunkKind: String, StoredState {
    case video, audio, loudness
}
