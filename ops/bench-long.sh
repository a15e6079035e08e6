#!/usr/bin/env bash
# Long-timeline benchmark, release build, all in one run on every core of this machine:
#   1. a 2-hour timeline of 720 cuts of 10 s at 192x108 (two sources, one of them with sound,
#      and music under it with a volume ramp every minute), rendered by `farm render` on an
#      embedded farm (one worker per core), by `farm render --local`, and by the ffmpeg program
#      (the concat demuxer over the same 720 cuts, the music mixed in with the same ramps, the
#      same encoder settings);
#   2. the same timeline's sound alone: `farm-bench --audio` mixes and encodes its audio blocks
#      on every core, against mixing alone on one core.
# Frame and sample counts of every output are checked, so a fast wrong render shows.
set -euo pipefail
cd "$(dirname "$0")/.."

bin="$(bash ops/build-release.sh farm farm-worker farm-bench)"
dir="${BENCH_DIR:-.build/bench-long}"
mkdir -p "$dir"
source ops/bench-common.sh
long_timeline long.json 60

python3 - "$dir" <<'PY'
import json, os, sys
dir = sys.argv[1]
project = json.load(open(os.path.join(dir, "long.json")))
cuts = project["tracks"][0]["items"]
# One cut: rendered once first, so the private database exists before any timed run.
project["tracks"] = [{"kind": "video", "items": cuts[:1]}]
json.dump(project, open(os.path.join(dir, "tiny.json"), "w"))
with open(os.path.join(dir, "cuts.txt"), "w") as f:
    for cut in cuts:
        start = float(cut["source"]["start"])
        f.write(f"file '{cut['asset']}.mp4'\ninpoint {start}\noutpoint {start + 10}\n")
# The music's ramp as one expression of t: 0.3 at even minutes, 1 at odd ones, linear between.
ramp = "0.3+0.7*(1-abs(mod(t/60,2)-1))"
open(os.path.join(dir, "music-volume.txt"), "w").write(ramp)
PY

data="$dir/farm"
"$bin/farm" render "$dir/tiny.json" -o "$dir/warmup.mp4" --data "$data" --workers 1 >/dev/null 2>&1 || true

start=$(now)
# --no-cache: the data folder outlives the script, and its segment cache would serve a rerun.
"$bin/farm" render "$dir/long.json" -o "$dir/farm.mp4" --data "$data" --no-cache >/dev/null 2>&1
farm_time=$(elapsed "$start")
start=$(now)
"$bin/farm" render "$dir/long.json" -o "$dir/local.mp4" --local >/dev/null 2>&1
local_time=$(elapsed "$start")
start=$(now)
# Sound goes through the same kind of work as the farm's: the cuts' own sound (a's sine) mixed
# with the ramped music, both resampled to 48 kHz stereo.
ffmpeg -hide_banner -nostdin -v error -y -f concat -safe 0 -i "$dir/cuts.txt" -stream_loop 11 -i "$dir/music.wav" \
    -filter_complex "[0:a]aresample=48000,aformat=channel_layouts=stereo[c];[1:a]volume='$(cat "$dir/music-volume.txt")':eval=frame,aformat=channel_layouts=stereo[m];[c][m]amix=inputs=2:normalize=0:duration=first[aout]" \
    -map 0:v -map "[aout]" -c:v libx264 -preset veryfast -crf 23 -g 60 -keyint_min 60 -sc_threshold 0 \
    -threads 0 -c:a aac -b:a 128k -t 7200 -movflags +faststart "$dir/ffmpeg.mp4"
ffmpeg_time=$(elapsed "$start")

count() {
    ffprobe -v error -count_packets -select_streams v -show_entries stream=nb_read_packets -of csv=p=0 "$1"
}
samples() {
    ffprobe -v error -select_streams a -show_entries frame=nb_samples -of csv=p=0 "$1" | awk '{ s += $1 } END { print s }'
}
echo "== 2-hour timeline: 720 cuts, 216000 frames at 192x108, libx264 veryfast crf 23, $(nproc) cores"
awk -v f="$farm_time" -v l="$local_time" -v x="$ffmpeg_time" 'BEGIN {
    printf "  farm render (embedded farm): %7.1f s\n", f
    printf "  farm render --local:         %7.1f s\n", l
    printf "  ffmpeg (concat of the cuts): %7.1f s\n", x
    printf "  farm / ffmpeg: %.2f (target <= 0.6)   local / farm: %.2f (target <= 1.1)\n", f / x, l / f
}'
# Where the farm's time went (`farm trace`): the phases added over its attempts, each worker
# slot's share, and the serial tail after the last render (join, QC).
job=$("$bin/farm" status --data "$data" --json | python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["id"])')
"$bin/farm" trace "$job" --data "$data" | sed 's/^/  /'
for file in farm local ffmpeg; do
    echo "  $file.mp4: $(count "$dir/$file.mp4") frames, $(samples "$dir/$file.mp4") samples (expected 216000, 345600000)"
done
echo "== the same timeline's sound alone"
"$bin/farm-bench" --audio "$dir/long.json"
