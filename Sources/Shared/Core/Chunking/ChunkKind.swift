/// What a chunk renders: a range of video frames, or the job's whole sound.
public enum ChunkKind: String, StoredState {
    case video, audio
}
