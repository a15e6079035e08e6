#!/usr/bin/env bash
# Benchmark, release build: the compositor on one thread at 1080p with the output on an SDR
# canvas (the baseline), then on PQ and HLG canvases, in the same invocation. The project is a
# phone's HLG clip (HEVC Main 10) under an SDR picture-in-picture and a title: on the SDR canvas
# the clip is tone-mapped; on HLG it passes through and the SDR layers are lifted; on PQ all are
# converted.
set -euo pipefail
cd "$(dirname "$0")/.."

bin="$(bash ops/build-release.sh farm-bench)"

dir="${BENCH_DIR:-.build/bench}"
mkdir -p "$dir"
source ops/bench-common.sh
make phone-hlg.mkv -f lavfi -i testsrc2=size=1920x1080:rate=30:duration=4 -pix_fmt yuv420p10le -c:v libx265 \
    -x265-params log-level=error -preset ultrafast -color_primaries bt2020 -color_trc arib-std-b67 \
    -colorspace bt2020nc -color_range tv
make pip.mp4 -f lavfi -i testsrc=size=960x540:rate=30:duration=4 -c:v libx264 -preset veryfast -g 60 -pix_fmt yuv420p
cat >"$dir/hdr.json" <<'JSON'
{
  "output": {"width": 1920, "height": 1080, "fps": 30},
  "export": {"video": {"codec": "hevc"}},
  "assets": {"phone": {"path": "phone-hlg.mkv"}, "pip": {"path": "pip.mp4"}},
  "tracks": [
    {"kind": "video", "items": [{"asset": "phone", "at": 0, "duration": 4}]},
    {"kind": "video", "items": [{"asset": "pip", "at": 0, "duration": 4, "frame": [0.6, 0.05, 0.35, 0.35]}]},
    {"kind": "video", "items": [{"title": {"text": "Harbour, 6 a.m.", "size": 64}, "at": 0, "duration": 4}]}
  ]
}
JSON

echo "== compositor: one 1080p HLG clip, an SDR picture-in-picture and a title, on each canvas"
"$bin/farm-bench" --dynamic-range "$dir/hdr.json" 120
