#!/usr/bin/env bash
# Benchmarks, release build: (1) compositor cost per 1080p frame on one thread, against a
# decode-only baseline: four upright layers, then a rotated eased PiP and a title; (2) `farm render --local` against the ffmpeg program rendering
# the same project with an equivalent filter graph and the same encoder settings.
set -euo pipefail
cd "$(dirname "$0")/.."

bin="$(bash ops/build-release.sh farm farm-bench)"

dir="${BENCH_DIR:-.build/bench}"
mkdir -p "$dir"
source ops/bench-common.sh
make main.mp4 -f lavfi -i testsrc2=size=1920x1080:rate=30:duration=10 -c:v libx264 -preset veryfast -g 60 -pix_fmt yuv420p
make pip.mp4 -f lavfi -i testsrc=size=960x540:rate=30:duration=10 -c:v libx264 -preset veryfast -g 60 -pix_fmt yuv420p
make life.mp4 -f lavfi -i "life=size=320x180:rate=30:mold=10:ratio=0.1,scale=1280:720:flags=neighbor" -t 10 \
    -c:v libx264 -preset veryfast -g 60 -pix_fmt yuv420p
make logo.png -f lavfi -i "color=0xE04020:size=240x80,format=rgba,colorchannelmixer=aa=0.8,pad=256:96:8:8:color=0x00000000" -frames:v 1
cp examples/bench-1080p.json "$dir/project.json"

echo "== compositor"
"$bin/farm-bench" "$dir/project.json" 300
cp examples/bench-transform-1080p.json "$dir/transform.json"
echo "== compositor: a rotated, eased picture-in-picture and a title over 1080p"
"$bin/farm-bench" "$dir/transform.json" 300

echo "== end to end (300 frames, 1920x1080, libx264 veryfast crf 20, both using every core)"
start=$(now)
"$bin/farm" render "$dir/project.json" -o "$dir/farm.mp4" --local >/dev/null 2>&1
farm_time=$(elapsed "$start")

graph="[1:v]scale=480:270[p1];[2:v]scale=640:360,format=yuva420p,fade=t=in:st=0:d=2:alpha=1[p2];"
graph+="[0:v][p1]overlay=1380:60[t1];[t1][p2]overlay=60:60[t2];[3:v]format=yuva420p[l];"
graph+="[t2][l]overlay=60:940:format=yuv420,format=yuv420p[out]"
start=$(now)
ffmpeg -hide_banner -nostdin -v error -y -i "$dir/main.mp4" -i "$dir/pip.mp4" -i "$dir/life.mp4" -i "$dir/logo.png" \
    -f lavfi -i anullsrc=r=48000:cl=stereo -filter_complex "$graph" -map "[out]" -map 4:a \
    -c:v libx264 -preset veryfast -crf 20 -g 60 -keyint_min 60 -sc_threshold 0 -c:a aac -b:a 192k -shortest \
    -movflags +faststart "$dir/ffmpeg.mp4"
ffmpeg_time=$(elapsed "$start")

frames=300
awk -v f="$farm_time" -v g="$ffmpeg_time" -v n="$frames" 'BEGIN {
    printf "  farm render --local: %6.2f s  %6.1f fps\n", f, n / f
    printf "  ffmpeg:              %6.2f s  %6.1f fps\n", g, n / g
    printf "  speed ratio (ffmpeg time / farm time): %.2fx\n", g / f
}'
