#!/usr/bin/env bash
# Farm benchmark, release build, all in one run:
#   1. the demo project (60 s, 1280x720) rendered by `farm render` with 1 and with 2 local
#      workers (x264 with one thread each), and by the ffmpeg program running an equivalent
#      filter graph (ops/bench-demo-graph.txt) on both cores; wall times and ratios;
#   2. the per-chunk fixed cost: a 10 s lossless project rendered with 1-frame chunks and as
#      one chunk by one worker, (difference) / (chunk count - 1);
#   3. the same with a generated picture (one solid colour) instead of the demo's clips: the
#      farm's own cost per task (assignment, encoder, upload, verification, acceptance), with
#      no source decoded forward from a keyframe.
# Each `farm render` includes starting and stopping its private PostgreSQL, as a user sees it.
set -euo pipefail
cd "$(dirname "$0")/.."
source ops/bench-common.sh

farm="$(bash ops/build-release.sh farm farm-worker)/farm"

dir="${BENCH_DIR:-.build/bench-farm}"
mkdir -p "$dir"
bash ops/demo-media.sh "$dir/media"
cp examples/demo.json "$dir/demo.json"
data="$dir/farm"

# Creates the private database once so no timed run pays for initdb.
"$farm" render "$dir/demo.json" -o "$dir/warmup.mp4" --data "$data" --workers 1 --chunks 1 >/dev/null 2>&1 || true

start=$(now)
"$farm" render "$dir/demo.json" -o "$dir/one-worker.mp4" --data "$data" --workers 1 --threads 1 --no-cache >/dev/null 2>&1
one=$(elapsed "$start")
start=$(now)
"$farm" render "$dir/demo.json" -o "$dir/two-workers.mp4" --data "$data" --workers 2 --threads 1 --no-cache >/dev/null 2>&1
two=$(elapsed "$start")
m="$dir/media"
start=$(now)
ffmpeg -hide_banner -nostdin -v error -y -i "$m/clip-a.mp4" -i "$m/clip-b.mp4" -i "$m/life.mp4" -i "$m/logo.png" \
    -i "$m/music.wav" -filter_complex_script ops/bench-demo-graph.txt -map "[out]" -map "[aout]" \
    -c:v libx264 -preset veryfast -crf 22 -g 60 -keyint_min 60 -sc_threshold 0 -threads 0 \
    -c:a aac -b:a 192k -movflags +faststart -t 60 "$dir/ffmpeg.mp4"
ff=$(elapsed "$start")

same=no
if [[ "$(ffmpeg -v error -i "$dir/one-worker.mp4" -map 0:v -f md5 -)" == "$(ffmpeg -v error -i "$dir/two-workers.mp4" -map 0:v -f md5 -)" ]]; then
    same=yes
fi

echo "== demo project: 1800 frames, 1280x720, libx264 veryfast crf 22, $(nproc) cores"
awk -v a="$one" -v b="$two" -v f="$ff" -v same="$same" 'BEGIN {
    printf "  farm render, 1 worker:   %6.2f s  %6.1f fps\n", a, 1800 / a
    printf "  farm render, 2 workers:  %6.2f s  %6.1f fps\n", b, 1800 / b
    printf "  ffmpeg, both cores:      %6.2f s  %6.1f fps\n", f, 1800 / f
    printf "  2 workers vs 1 worker: %.2fx faster (target >= 1.85x)\n", a / b
    printf "  farm (2 workers) time / ffmpeg time: %.2f (target <= 0.8)\n", b / f
    printf "  decoded frames identical with 1 and 2 workers: %s\n", same
}'

# 10 s lossless version of the demo: lossless chunks may start at any frame.
python3 - "$dir/demo.json" "$dir/lossless.json" <<'PY'
import json, sys
project = json.load(open(sys.argv[1]))
project["export"] = {"container": "mkv", "video": {"codec": "h264", "lossless": True, "preset": "veryfast"}, "audio": {"codec": "pcm"}}
for track in project["tracks"]:
    track["items"] = [item for item in track["items"] if float(item["at"]) < 10]
    for item in track["items"]:
        item["duration"] = str(min(float(item["duration"]), 10 - float(item["at"])))
        if "source" in item: item["source"].pop("duration", None)
json.dump(project, open(sys.argv[2], "w"), indent=1)
PY
# Renders PROJECT as one chunk and as 300 1-frame chunks on one worker; prints both times and
# (difference) / 299 as the fixed cost of one more chunk, under TITLE, against TARGET ms.
fixed_cost() {
    local project="$1" title="$2" what="$3" target="$4" start whole frames
    start=$(now)
    "$farm" render "$dir/$project.json" -o "$dir/$project-whole.mkv" --data "$data" --workers 1 --chunks 1 --no-cache \
        >/dev/null 2>&1
    whole=$(elapsed "$start")
    start=$(now)
    "$farm" render "$dir/$project.json" -o "$dir/$project-frames.mkv" --data "$data" --workers 1 --chunk-frames 1 --no-cache \
        >/dev/null 2>&1
    frames=$(elapsed "$start")
    echo "== $title"
    awk -v w="$whole" -v f="$frames" -v what="$what" -v target="$target" 'BEGIN {
        printf "  one chunk:         %6.2f s\n", w
        printf "  300 1-frame chunks: %6.2f s\n", f
        printf "  fixed cost per %s: %.1f ms (target < %d ms)\n", what, (f - w) / 299 * 1000, target
    }'
}
fixed_cost lossless "per-chunk fixed cost: 300 frames, 1280x720 lossless, 1 worker" chunk 100

# The same 300 frames as one generated picture: no source to decode, only the farm's own cost.
python3 - "$dir/lossless.json" "$dir/generated.json" <<'PY'
import json, sys
project = json.load(open(sys.argv[1]))
project["assets"] = {}
project["tracks"] = [{"kind": "video", "items": [{"solid": "#224466", "at": 0, "duration": "10"}]}]
json.dump(project, open(sys.argv[2], "w"), indent=1)
PY
fixed_cost generated "per-task fixed cost of the farm itself: 300 generated frames, 1280x720 lossless, 1 worker" \
    task 50
