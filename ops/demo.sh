#!/usr/bin/env bash
# The demo: installs what is missing, builds in release, generates ~60 s of demo media with
# ffmpeg's lavfi sources, and renders a multi-track project on a farm of its own: a private
# PostgreSQL in demo-output/farm (run as the `postgres` user when root), a coordinator and one
# worker per core. Prints the output path and a summary.
set -euo pipefail
cd "$(dirname "$0")/.."

farm="$(bash ops/build-release.sh farm farm-worker)/farm"

out="demo-output"
echo "demo: generating media in $out/media" >&2
bash ops/demo-media.sh "$out/media"

cp examples/demo.json "$out/demo.json"
"$farm" render "$out/demo.json" -o "$out/demo.mp4" --data "$out/farm"
