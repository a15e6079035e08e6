#!/usr/bin/env bash
# Generates the demo project's media (about 60 s) with ffmpeg's lavfi sources into the folder
# given as $1; files already there are kept.
set -euo pipefail
media="$1"
mkdir -p "$media"
make() { [[ -s "$media/$1" ]] || ffmpeg -hide_banner -nostdin -v error -y "${@:2}" "$media/$1"; }

make clip-a.mp4 -f lavfi -i testsrc2=size=1280x720:rate=30:duration=40 \
    -f lavfi -i "sine=frequency=330:sample_rate=48000:duration=40" \
    -c:v libx264 -preset veryfast -g 30 -pix_fmt yuv420p -c:a aac -shortest
make clip-b.mp4 -f lavfi -i testsrc=size=960x540:rate=60:duration=30 \
    -c:v libx264 -preset veryfast -g 60 -pix_fmt yuv420p
make life.mp4 -f lavfi -i "life=size=320x180:rate=25:seed=1:mold=10:ratio=0.1:death_color=#202060:life_color=#60FF60,scale=640:360:flags=neighbor" \
    -t 45 -c:v libx264 -preset veryfast -pix_fmt yuv420p
make music.wav -f lavfi -i "aevalsrc=0.2*sin(2*PI*220*t)+0.1*sin(2*PI*277*t)+0.1*sin(2*PI*330*t):s=48000:d=60"
make logo.png -f lavfi -i "color=0xE04020:size=240x80,format=rgba,colorchannelmixer=aa=0.8,pad=256:96:8:8:color=0x00000000" \
    -frames:v 1
