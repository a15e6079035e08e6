#!/usr/bin/env bash
# The bar project: 10 s at 1280x720, three cuts between two clips and a picture-in-picture with
# an opacity ramp, libx264 veryfast crf 20. Rendered in one run by `farm render` (embedded farm,
# one worker per core), by `farm render --local`, and by the ffmpeg program with the equivalent
# filter graph, all on every core, in ROUNDS rounds (default 5); prints every time, the
# medians and the farm/ffmpeg ratios.
set -euo pipefail
cd "$(dirname "$0")/.."

# FARM_BIN: a folder holding another build's farm and farm-worker (to compare two builds).
farm="${FARM_BIN:-$(bash ops/build-release.sh farm farm-worker)}/farm"
dir="${BENCH_DIR:-.build/bench-bar}"
mkdir -p "$dir"
source ops/bench-common.sh
make a.mp4 -f lavfi -i testsrc2=size=1280x720:rate=30:duration=10 -c:v libx264 -preset veryfast -g 60 -pix_fmt yuv420p
make b.mp4 -f lavfi -i "mandelbrot=size=1280x720:rate=30" -t 10 -c:v libx264 -preset veryfast -g 60 -pix_fmt yuv420p
make pip.mp4 -f lavfi -i testsrc=size=640x360:rate=30:duration=10 -c:v libx264 -preset veryfast -g 60 -pix_fmt yuv420p
cat > "$dir/bar.json" <<'JSON'
{
  "output": {"width": 1280, "height": 720, "fps": "30", "audio": {"sampleRate": 48000, "channels": 2}},
  "export": {"container": "mp4", "video": {"codec": "h264", "crf": 20, "preset": "veryfast"}},
  "assets": {"a": {"path": "a.mp4"}, "b": {"path": "b.mp4"}, "pip": {"path": "pip.mp4"}},
  "tracks": [
    {"kind": "video", "items": [
      {"asset": "a", "at": "0", "duration": "4"},
      {"asset": "b", "at": "4", "duration": "3", "source": {"start": "4"}},
      {"asset": "a", "at": "7", "duration": "3", "source": {"start": "7"}}]},
    {"kind": "video", "items": [{"asset": "pip", "at": "0", "duration": "10", "fit": "stretch",
      "frame": [0.625, 0.0625, 0.3125, 0.3125], "opacity": {"keys": [["0", 0], ["2", 1]]}}]}
  ]
}
JSON
graph="[0:v]trim=0:4,setpts=PTS-STARTPTS[c1];[1:v]trim=4:7,setpts=PTS-STARTPTS[c2];"
graph+="[0:v]trim=7:10,setpts=PTS-STARTPTS[c3];[c1][c2][c3]concat=n=3:v=1:a=0[base];"
graph+="[2:v]scale=400:224,format=yuva420p,fade=t=in:st=0:d=2:alpha=1[p];"
graph+="[base][p]overlay=800:46:format=yuv420,format=yuv420p[out]"
data="$dir/farm"
"$farm" render "$dir/bar.json" -o "$dir/warmup.mp4" --data "$data" >/dev/null 2>&1

# Rounds, each running the three in turn, so a slow spell of the machine hits all three
# alike; the medians are compared.
rounds="${ROUNDS:-5}"
farm_times=() local_times=() ffmpeg_times=()
for ((round = 0; round < rounds; round++)); do
    start=$(now)
    "$farm" render "$dir/bar.json" -o "$dir/farm.mp4" --data "$data" --no-cache >/dev/null 2>&1
    farm_times+=("$(elapsed "$start")")
    start=$(now)
    "$farm" render "$dir/bar.json" -o "$dir/local.mp4" --local >/dev/null 2>&1
    local_times+=("$(elapsed "$start")")
    start=$(now)
    ffmpeg -hide_banner -nostdin -v error -y -i "$dir/a.mp4" -i "$dir/b.mp4" -i "$dir/pip.mp4" \
        -f lavfi -i anullsrc=r=48000:cl=stereo -filter_complex "$graph" -map "[out]" -map 3:a \
        -c:v libx264 -preset veryfast -crf 20 -g 60 -keyint_min 60 -sc_threshold 0 -threads 0 \
        -c:a aac -b:a 192k -t 10 -movflags +faststart "$dir/ffmpeg.mp4"
    ffmpeg_times+=("$(elapsed "$start")")
done
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
farm_time=$(median "${farm_times[@]}")
local_time=$(median "${local_times[@]}")
ffmpeg_time=$(median "${ffmpeg_times[@]}")
cmp -s "$dir/farm.mp4" "$dir/local.mp4" || { echo "farm and --local outputs differ" >&2; exit 1; }

echo "== bar project: 300 frames, 1280x720, libx264 veryfast crf 20, $(nproc) cores, median of $rounds rounds"
echo "  farm render:         ${farm_times[*]}"
echo "  farm render --local: ${local_times[*]}"
echo "  ffmpeg:              ${ffmpeg_times[*]}"
awk -v f="$farm_time" -v l="$local_time" -v g="$ffmpeg_time" 'BEGIN {
    printf "  medians: farm render %.2f s, --local %.2f s, ffmpeg %.2f s\n", f, l, g
    printf "  farm / ffmpeg: %.2f (target <= 0.9)   --local / ffmpeg: %.2f\n", f / g, l / g
}'
