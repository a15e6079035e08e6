#!/usr/bin/env bash
# The demo: installs what is missing, builds in release, generates ~60 s of demo media with
# ffmpeg's lavfi sources, and renders a multi-track project on a farm of its own: a private
# PostgreSQL in demo-output/farm (run as the `postgres` user when root), a coordinator and one
# worker per core. Prints the output path and a summary.
set -euo pipefail
cd "$(dirname "$0")/.."

bash ops/setup.sh
swift build -c release --product farm
swift build -c release --product farm-worker
farm="$(swift build -c release --show-bin-path)/farm"

out="demo-output"
media="$out/media"
mkdir -p "$media"
make() { [[ -s "$media/$1" ]] || ffmpeg -hide_banner -nostdin -v error -y "${@:2}" "$media/$1"; }

echo "demo: generating media in $media" >&2
make clip-a.mp4 -f lavfi -i testsrc2=size=1280x720:rate=30:duration=40 \
    -f lavfi -i "sine=frequency=330:sample_rate=48000:duration=40" \
    -c:v libx264 -preset veryfast -g 30 -pix_fmt yuv420p -c:a aac -shortest
make clip-b.mp4 -f lavfi -i testsrc=size=960x540:rate=60:duration=30 \
    -c:v libx264 -preset veryfast -g 60 -pix_fmt yuv420p
make life.mp4 -f lavfi -i "life=size=320x180:rate=25:mold=10:ratio=0.1:death_color=#202060:life_color=#60FF60,scale=640:360:flags=neighbor" \
    -t 45 -c:v libx264 -preset veryfast -pix_fmt yuv420p
make music.wav -f lavfi -i "aevalsrc=0.2*sin(2*PI*220*t)+0.1*sin(2*PI*277*t)+0.1*sin(2*PI*330*t):s=48000:d=60"
make logo.png -f lavfi -i "color=0xE04020:size=240x80,format=rgba,colorchannelmixer=aa=0.8,pad=256:96:8:8:color=0x00000000" \
    -frames:v 1

cp examples/demo.json "$out/demo.json"
"$farm" render "$out/demo.json" -o "$out/demo.mp4" --data "$out/farm"
