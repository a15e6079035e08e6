#!/usr/bin/env bash
# Scaling benchmark, release build, all in one run. For c = 1, 2, 4, ... up to the number of
# cores (and that number itself), pinned to the first c cores with taskset:
#   - the demo (examples/demo.json, 60 s at 1280x720) and the demo repeated to 5 minutes,
#     rendered by `farm render --workers c` (a private PostgreSQL, a coordinator and c workers,
#     started and stopped inside the timing, as a user sees it) and by `farm render --local
#     --threads c`;
#   - the same two timelines rendered by the ffmpeg program with an equivalent filter graph
#     (ops/bench-demo-graph.txt, five copies of it concatenated for 5 minutes), -threads 0.
# Prints wall times, farm/ffmpeg ratios and the speed-up against one core. Runs unchanged on a
# machine with more cores; BENCH_MAX_CORES caps c.
set -euo pipefail
cd "$(dirname "$0")/.."
source ops/bench-common.sh

bin="$(bash ops/build-release.sh farm farm-worker)"
farm="$bin/farm"

dir="${BENCH_DIR:-.build/bench-scaling}"
mkdir -p "$dir"
bash ops/demo-media.sh "$dir/media"
cp examples/demo.json "$dir/demo.json"
# The demo five times over: every item again at +60, +120, +180 and +240 s.
python3 - "$dir/demo.json" "$dir/demo5.json" <<'PY'
import json, sys
project = json.load(open(sys.argv[1]))
for track in project["tracks"]:
    items = track["items"]
    track["items"] = [dict(item, at=str(float(item["at"]) + 60 * k)) for k in range(5) for item in items]
json.dump(project, open(sys.argv[2], "w"), indent=1)
PY
# ffmpeg's graph for 5 minutes: five copies of the demo's graph on five copies of the inputs,
# concatenated, so ffmpeg does five times the work too.
python3 - ops/bench-demo-graph.txt "$dir/graph5.txt" <<'PY'
import re, sys
graph = open(sys.argv[1]).read().strip().rstrip(";")
copies = []
for k in range(5):
    copy = re.sub(r"\[(\d):(v|a)\]", lambda m: f"[{int(m.group(1)) + 5 * k}:{m.group(2)}]", graph)
    copy = re.sub(r"\[([a-z][a-z0-9]*)\]", lambda m: f"[{m.group(1)}{k}]", copy)
    copies.append(copy)
pairs = "".join(f"[out{k}][aout{k}]" for k in range(5))
open(sys.argv[2], "w").write(";\n".join(copies) + f";\n{pairs}concat=n=5:v=1:a=1[out][aout]\n")
PY

data="$dir/farm"
m="$dir/media"
inputs=(-i "$m/clip-a.mp4" -i "$m/clip-b.mp4" -i "$m/life.mp4" -i "$m/logo.png" -i "$m/music.wav")
cores() { echo "0-$(($1 - 1))"; }

# The private database is created once, so no timed run pays for initdb.
"$farm" render "$dir/demo.json" -o "$dir/warmup.mp4" --data "$data" --workers 1 --chunks 1 >/dev/null 2>&1 || true

maximum=$(nproc)
maximum=$((${BENCH_MAX_CORES:-$maximum} < maximum ? ${BENCH_MAX_CORES:-$maximum} : maximum))
counts=()
for ((c = 1; c < maximum; c *= 2)); do counts+=("$c"); done
counts+=("$maximum")

declare -A seconds
for name in demo demo5; do
    graph=ops/bench-demo-graph.txt
    ffinputs=("${inputs[@]}")
    length=60
    if [[ $name == demo5 ]]; then
        graph="$dir/graph5.txt"
        ffinputs=()
        for _ in 1 2 3 4 5; do ffinputs+=("${inputs[@]}"); done
        length=300
    fi
    for c in "${counts[@]}"; do
        start=$(now)
        taskset -c "$(cores "$c")" "$farm" render "$dir/$name.json" -o "$dir/$name-farm-$c.mp4" --data "$data" \
            --workers "$c" --threads 1 --no-cache >/dev/null 2>&1
        seconds[$name,farm,$c]=$(elapsed "$start")
        start=$(now)
        taskset -c "$(cores "$c")" "$farm" render "$dir/$name.json" -o "$dir/$name-local-$c.mp4" --local \
            --threads "$c" >/dev/null 2>&1
        seconds[$name,local,$c]=$(elapsed "$start")
        start=$(now)
        taskset -c "$(cores "$c")" ffmpeg -hide_banner -nostdin -v error -y "${ffinputs[@]}" \
            -filter_complex_script "$graph" -map "[out]" -map "[aout]" \
            -c:v libx264 -preset veryfast -crf 22 -g 60 -keyint_min 60 -sc_threshold 0 -threads 0 \
            -c:a aac -b:a 192k -movflags +faststart -t "$length" "$dir/$name-ffmpeg-$c.mp4"
        seconds[$name,ffmpeg,$c]=$(elapsed "$start")
    done
done

md5() { ffmpeg -v error -i "$1" -map "0:$2" -f md5 - 2>/dev/null; }
for name in demo demo5; do
    [[ $name == demo ]] && frames=1800 || frames=9000
    echo "== $name: $frames frames, 1280x720, libx264 veryfast crf 22, pinned to c of $(nproc) cores"
    printf "  %5s %10s %10s %10s %12s %12s %12s\n" cores farm local ffmpeg farm/ffmpeg local/farm farm-speedup
    for c in "${counts[@]}"; do
        awk -v c="$c" -v f="${seconds[$name,farm,$c]}" -v l="${seconds[$name,local,$c]}" \
            -v x="${seconds[$name,ffmpeg,$c]}" -v one="${seconds[$name,farm,1]}" 'BEGIN {
            printf "  %5d %9.2fs %9.2fs %9.2fs %12.2f %12.2f %11.2fx\n", c, f, l, x, f / x, l / f, one / f
        }'
    done
    reference="$dir/$name-farm-1.mp4"
    same=yes
    for file in "$dir/$name"-farm-*.mp4 "$dir/$name"-local-*.mp4; do
        if [[ "$(md5 "$file" v)" != "$(md5 "$reference" v)" || "$(md5 "$file" a)" != "$(md5 "$reference" a)" ]]; then
            same="no ($file differs)"
        fi
    done
    echo "  decoded video and audio identical for every farm and local run: $same"
done
