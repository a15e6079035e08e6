import CFFmpeg

/// The instruction sets libx264 is allowed, as its `asm` parameter names them.
///
/// libx264 picks its assembly by what the CPU has, and its output follows that choice: the
/// same frames encode differently with AVX2 than in plain C. With AVX-512 (0.164 on an AMD
/// EPYC) it is not even repeatable: one GOP of one chunk, encoded by a fresh single-threaded
/// encoder, came out three different ways in six renders, depending on what the process's
/// other threads were doing. So the farm names the set itself, never AVX-512, and every worker
/// with the same set encodes the same bytes. Workers of one farm should share a level: a CPU
/// below AVX2 gets a smaller set and encodes its chunks differently from the others, unless its
/// peers are capped to the same level (`farm-worker --x264-level`). Workers report the set in
/// their kind (`RenderNodeKind`), and one job's chunks are rendered by one kind.
public enum X264InstructionSet {
    /// x264's names, each level with the CPU features it needs, in the order they build on
    /// each other; a level counts only if every one before it does.
    private static let levels: [(name: String, flags: Int32)] = [
        ("MMX2", AV_CPU_FLAG_MMXEXT), ("SSE2Fast", AV_CPU_FLAG_SSE2), ("SSSE3", AV_CPU_FLAG_SSSE3),
        ("SSE4.2", AV_CPU_FLAG_SSE4 | AV_CPU_FLAG_SSE42), ("AVX", AV_CPU_FLAG_AVX), ("FMA3", AV_CPU_FLAG_FMA3),
        ("BMI2", AV_CPU_FLAG_BMI1 | AV_CPU_FLAG_BMI2), ("AVX2", AV_CPU_FLAG_AVX2),
    ]

    /// Every level's name, lowest first.
    public static var levelNames: [String] { levels.map(\.name) }

    /// The highest level allowed, set once at start (`farm-worker --x264-level`); nil: the CPU's.
    nonisolated(unsafe) private static var ceiling: String?

    /// Allows no level above `name`, which must be one of `levelNames`. Call before any encode.
    public static func cap(at name: String) {
        ceiling = name
    }

    /// The `asm` value in use (`MMX2,SSE2Fast,…,AVX2`), or nil off x86, where x264's own choice
    /// stands.
    static var parameter: String? {
        guard let available else { return nil }
        guard let ceiling, let top = available.firstIndex(of: ceiling) else {
            return available.isEmpty ? "0" : available.joined(separator: ",")
        }
        return available[...top].joined(separator: ",")
    }

    /// What workers report: the `asm` value, or "native" off x86.
    public static var reported: String { parameter ?? "native" }

    /// The levels this CPU has, lowest first; nil off x86.
    private static let available: [String]? = {
        #if arch(x86_64)
            let cpu = av_get_cpu_flags()
            var names: [String] = []
            for level in levels {
                guard cpu & level.flags == level.flags else { break }
                names.append(level.name)
            }
            return names
        #else
            return nil
        #endif
    }()
}
