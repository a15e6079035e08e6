#!/usr/bin/env bash
# The bar project: 10 s at 1280x720, three cuts between two clips and a picture-in-picture with
# an opacity ramp, libx264 veryfast crf 20. Rendered in one run by `farm render` (embedded farm,
# one worker per core), by `farm render --local`, and by the ffmpeg program with the equivalent
# filter graph, all on every core; prints wall times and farm/ffmpeg ratios.
set -euo pipefail
cd "$(dirname "$0")/.."

farm="$(bash ops/build-release.sh farm farm-worker)/farm"
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

start=$(now)
"$farm" render "$dir/bar.json" -o "$dir/farm.mp4" --data "$data" >/dev/null 2>&1
farm_time=$(elapsed "$start")
start=$(now)
"$farm" render "$dir/bar.json" -o "$dir/local.mp4" --local >/dev/null 2>&1
local_time=$(elapsed "$start")
start=$(now)
ffmpeg -hide_banner -nostdin -v error -y -i "$dir/a.mp4" -i "$dir/b.mp4" -i "$dir/pip.mp4" \
    -f lavfi -i anullsrc=r=48000:cl=stereo -filter_complex "$graph" -map "[out]" -map 3:a \
    -c:v libx264 -preset veryfast -crf 20 -g 60 -keyint_min 60 -sc_threshold 0 -threads 0 \
    -c:a aac -b:a 192k -t 10 -movflags +faststart "$dir/ffmpeg.mp4"
ffmpeg_time=$(elapsed "$start")

echo "== bar project: 300 frames, 1280x720, libx264 veryfast crf 20, $(nproc) cores"
awk -v f="$farm_time" -v l="$local_time" -v g="$ffmpeg_time" 'BEGIN {
    printf "  farm render:         %6.2f s\n", f
    printf "  farm render --local: %6.2f s\n", l
    printf "  ffmpeg:              %6.2f s\n", g
    printf "  farm / ffmpeg: %.2f   --local / ffmpeg: %.2f   (target <= 0.8)\n", f / g, l / g
}'
