#!/usr/bin/env bash
# The farm's own costs, in one run on this machine: for a 10 s project (ops/bench-bar.sh's bar
# project), the demo (60 s) and the demo five times over (5 min), `farm render --workers 2
# --no-cache` (a warm data folder) against `farm render --local` and, where an equivalent
# graph exists, the ffmpeg program; then the farm's time by phase from `farm trace`: before
# the first assignment (the private database, the workers' start, the submission), the renders
# (first assignment to last acceptance), the join and QC, and the teardown after the job ended.
# ROUNDS (default 3) rounds of the 10 s project, one of the others; medians compared.
set -euo pipefail
cd "$(dirname "$0")/.."
source ops/bench-common.sh

bin="$(bash ops/build-release.sh farm farm-worker)"
farm="$bin/farm"
dir="${BENCH_DIR:-.build/bench-costs}"
mkdir -p "$dir"
rounds="${ROUNDS:-3}"
data="$dir/farm"

# The bar project and its media (ops/bench-bar.sh).
BENCH_DIR="$dir/bar" ROUNDS=0 bash ops/bench-bar.sh >/dev/null 2>&1 || true
bash ops/demo-media.sh "$dir/media" >/dev/null
cp examples/demo.json "$dir/demo.json"
# The demo five times over: its items again at 60 s, 120 s, ...
python3 - "$dir/demo.json" "$dir/demo-5x.json" <<'PY'
import json, sys
from fractions import Fraction
project = json.load(open(sys.argv[1]))
for track in project["tracks"]:
    items = track["items"]
    track["items"] = [dict(item, at=str(Fraction(item["at"]) + 60 * n)) for n in range(5) for item in items]
json.dump(project, open(sys.argv[2], "w"), indent=1)
PY
"$farm" render "$dir/bar/bar.json" -o "$dir/warmup.mp4" --data "$data" >/dev/null 2>&1

# farm_run NAME PROJECT: one timed farm render; prints its seconds and its phases.
farm_run() {
    local start end
    start=$(now)
    "$farm" render "$2" -o "$dir/$1-farm.mp4" --data "$data" --workers 2 --no-cache >/dev/null 2>&1
    end=$(now)
    local job
    job=$("$farm" status --data "$data" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])')
    "$farm" trace "$job" --data "$data" --json >"$dir/$1-trace.json"
    python3 - "$dir/$1-trace.json" "$start" "$end" <<'PY'
import json, sys
t = json.load(open(sys.argv[1])); start, end = float(sys.argv[2]), float(sys.argv[3])
attempts = [a for a in t["trace"]["attempts"] if a["sent"] is not None and a["accepted"] is not None]
first = min(a["sent"] for a in attempts); last = max(a["accepted"] for a in attempts)
finished = t["trace"]["finished"]
slots = t["summary"]["slots"]
busy = min(s["busyUntilLastStart"] for s in slots)
idle = sum(s["idleWhileQueued"] for s in slots)
print(f"{end - start:.3f} before-first-assignment {first - start:.3f} renders {last - first:.3f} "
      f"join+qc {finished - last:.3f} teardown {end - finished:.3f} "
      f"least-busy-slot {100 * busy:.1f}% idle-while-queued {idle:.3f}")
PY
}

# timed COMMAND...: seconds a command takes.
timed() { local start; start=$(now); "$@" >/dev/null 2>&1; elapsed "$start"; }

median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

bar_ffmpeg() {
    local graph="[0:v]trim=0:4,setpts=PTS-STARTPTS[c1];[1:v]trim=4:7,setpts=PTS-STARTPTS[c2];"
    graph+="[0:v]trim=7:10,setpts=PTS-STARTPTS[c3];[c1][c2][c3]concat=n=3:v=1:a=0[base];"
    graph+="[2:v]scale=400:224,format=yuva420p,fade=t=in:st=0:d=2:alpha=1[p];"
    graph+="[base][p]overlay=800:46:format=yuv420,format=yuv420p[out]"
    ffmpeg -hide_banner -nostdin -v error -y -i "$dir/bar/a.mp4" -i "$dir/bar/b.mp4" -i "$dir/bar/pip.mp4" \
        -f lavfi -i anullsrc=r=48000:cl=stereo -filter_complex "$graph" -map "[out]" -map 3:a \
        -c:v libx264 -preset veryfast -crf 20 -g 60 -keyint_min 60 -sc_threshold 0 -threads 0 \
        -c:a aac -b:a 192k -t 10 -movflags +faststart "$dir/bar-ffmpeg.mp4"
}

demo_ffmpeg() {
    local m="$dir/media"
    ffmpeg -hide_banner -nostdin -v error -y -i "$m/clip-a.mp4" -i "$m/clip-b.mp4" -i "$m/life.mp4" -i "$m/logo.png" \
        -i "$m/music.wav" -filter_complex_script ops/bench-demo-graph.txt -map "[out]" -map "[aout]" \
        -c:v libx264 -preset veryfast -crf 22 -g 60 -keyint_min 60 -sc_threshold 0 -threads 0 \
        -c:a aac -b:a 192k -movflags +faststart -t 60 "$dir/demo-ffmpeg.mp4"
}

# decoded FILE: the MD5 of its decoded video and sound.
decoded() { ffmpeg -v error -i "$1" -map 0:v -map '0:a?' -f md5 -; }

# project NAME FILE ROUNDS FFMPEG-FUNCTION
project() {
    local farms=() locals=() ffmpegs=() phases=()
    for ((round = 0; round < $3; round++)); do
        local line
        line=$(farm_run "$1" "$2")
        farms+=("${line%% *}")
        phases+=("${line#* }")
        locals+=("$(timed "$farm" render "$2" -o "$dir/$1-local.mp4" --local)")
        [[ -n "$4" ]] && ffmpegs+=("$(timed "$4")")
    done
    # The promise is identical decoded frames and samples; bytes are compared too, and said.
    [[ "$(decoded "$dir/$1-farm.mp4")" == "$(decoded "$dir/$1-local.mp4")" ]] ||
        { echo "$1: farm and --local decode differently" >&2; exit 1; }
    cmp -s "$dir/$1-farm.mp4" "$dir/$1-local.mp4" ||
        echo "   $1: same frames and samples; the files differ ($(cmp "$dir/$1-farm.mp4" "$dir/$1-local.mp4" | head -1))"
    local f l
    f=$(median "${farms[@]}")
    l=$(median "${locals[@]}")
    echo "== $1: farm render (2 workers) ${farms[*]} s; --local ${locals[*]} s${4:+; ffmpeg ${ffmpegs[*]} s}"
    for p in "${phases[@]}"; do echo "   farm phases: $p"; done
    if [[ -n "$4" ]]; then
        awk -v f="$f" -v l="$l" -v g="$(median "${ffmpegs[@]}")" \
            'BEGIN { printf "   medians: farm/--local %.2f, farm/ffmpeg %.2f, --local/ffmpeg %.2f\n", f / l, f / g, l / g }'
    else
        awk -v f="$f" -v l="$l" 'BEGIN { printf "   medians: farm/--local %.2f\n", f / l }'
    fi
}

echo "farm's own costs, $(nproc) cores, $(date -u +%Y-%m-%d)"
project bar "$dir/bar/bar.json" "$rounds" bar_ffmpeg
project demo "$dir/demo.json" 1 demo_ffmpeg
project demo-5x "$dir/demo-5x.json" 1 ""
