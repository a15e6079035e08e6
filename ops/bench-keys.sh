#!/usr/bin/env bash
# Chunk keys at real scale, release build: the 2-hour timeline of ops/bench-long.sh (720 cuts,
# music with volume ramps) with a GOP of 2 frames, cut into 2-frame chunks: 108,000 video
# chunks and 720 audio blocks, about what a 100,000-chunk submission computes. farm-bench
# --keys prints the keys' time against the same keys hashed from JSONEncoder text (the way
# they were made before), in the same run, and the time of building what they hash alone.
set -euo pipefail
cd "$(dirname "$0")/.."

bin="$(bash ops/build-release.sh farm-bench)"
dir="${BENCH_DIR:-.build/bench-long}"
mkdir -p "$dir"
source ops/bench-common.sh
long_timeline keys.json 2

"$bin/farm-bench" --keys "$dir/keys.json" 2
