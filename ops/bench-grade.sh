#!/usr/bin/env bash
# Benchmark, release build: the compositor on one thread at 1080p, ungraded (the baseline), then
# with an output grade (a CDL, a 33-point .cube LUT, both) on every frame's whole canvas, in the
# same invocation. The grade's cost is two libswscale conversions (YUV to planar RGB and back)
# and the per-pixel CDL and tetrahedral lookup.
set -euo pipefail
cd "$(dirname "$0")/.."

bin="$(bash ops/build-release.sh farm-bench)"

dir="${BENCH_DIR:-.build/bench}"
mkdir -p "$dir"
source ops/bench-common.sh
make grade-clip.mp4 -f lavfi -i testsrc2=size=1920x1080:rate=30:duration=4 -c:v libx264 -preset veryfast -g 60 \
    -pix_fmt yuv420p
python3 - "$dir/look.cube" <<'PY'
import math, sys
size = 33
lines = ["TITLE \"bench look\"", f"LUT_3D_SIZE {size}"]
for b in range(size):
    for g in range(size):
        for r in range(size):
            r1, g1, b1 = r / (size - 1), g / (size - 1), b / (size - 1)
            lines.append("%.6f %.6f %.6f" % (0.85 * r1 ** 0.8 + 0.12 * b1 - 0.02,
                                             0.7 * (0.5 - 0.5 * math.cos(math.pi * g1)) + 0.25 * r1 * b1 + 0.03,
                                             1.05 * b1 * b1 + 0.1 * (1 - r1) - 0.04 * g1))
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
PY
cat >"$dir/grade.json" <<'JSON'
{
  "output": {"width": 1920, "height": 1080, "fps": 30},
  "assets": {"clip": {"path": "grade-clip.mp4"}},
  "tracks": [{"kind": "video", "items": [{"asset": "clip", "at": 0, "duration": 4}]}]
}
JSON

echo "== compositor: one 1080p clip, ungraded and with output grades"
"$bin/farm-bench" --grade "$dir/grade.json" "$dir/look.cube" 120
