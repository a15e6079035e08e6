#!/usr/bin/env bash
# What posters and thumbnails cost (export.poster, export.thumbnails): a 60 s 1280x720 project
# rendered by `farm render` (embedded farm, one worker per core, --no-cache) and by
# `farm render --local`, without stills (the baseline) and with a poster and thumbnails every
# 1 s and every 2 s (the default GOP), in ROUNDS rounds (default 3), each running every case in
# turn; prints every time, the medians and each case's ratio to the baseline of its mode.
set -euo pipefail
cd "$(dirname "$0")/.."

# FARM_BIN: a folder holding another build's farm and farm-worker (to compare two builds).
farm="${FARM_BIN:-$(bash ops/build-release.sh farm farm-worker)}/farm"
dir="${BENCH_DIR:-.build/bench-stills}"
mkdir -p "$dir"
source ops/bench-common.sh
make a.mp4 -f lavfi -i testsrc2=size=1280x720:rate=30:duration=60 -c:v libx264 -preset veryfast -g 60 -pix_fmt yuv420p
for case in none every1 every2; do
    case $case in
        none) stills='' ;;
        every1) stills=', "poster": {"time": "30"}, "thumbnails": {"every": "1"}' ;;
        every2) stills=', "poster": {"time": "30"}, "thumbnails": {"every": "2"}' ;;
    esac
    cat > "$dir/$case.json" <<JSON
{"output": {"width": 1280, "height": 720, "fps": "30"},
 "export": {"video": {"codec": "h264", "crf": 20, "preset": "veryfast"}$stills},
 "assets": {"a": {"path": "a.mp4"}},
 "tracks": [{"kind": "video", "items": [{"asset": "a", "at": "0", "duration": "60"}]}]}
JSON
done
data="$dir/farm"
"$farm" render "$dir/none.json" -o "$dir/warmup.mp4" --data "$data" >/dev/null 2>&1

rounds="${ROUNDS:-3}"
declare -A times
for ((round = 0; round < rounds; round++)); do
    for case in none every1 every2; do
        start=$(now)
        "$farm" render "$dir/$case.json" -o "$dir/farm-$case.mp4" --data "$data" --no-cache >/dev/null 2>&1
        times[farm-$case]+="$(elapsed "$start") "
        start=$(now)
        "$farm" render "$dir/$case.json" -o "$dir/local-$case.mp4" --local >/dev/null 2>&1
        times[local-$case]+="$(elapsed "$start") "
    done
done
for case in every1 every2; do
    cmp -s "$dir/farm-$case.thumbnails.jpg" "$dir/local-$case.thumbnails.jpg" ||
        { echo "$case: the farm's and --local's thumbnail sheets differ" >&2; exit 1; }
done
median() { printf '%s\n' $@ | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo "== 60 s 1280x720, libx264 veryfast crf 20, $(nproc) cores, median of $rounds rounds"
for mode in farm local; do
    base=$(median ${times[$mode-none]})
    for case in none every1 every2; do
        m=$(median ${times[$mode-$case]})
        awk -v mode="$mode" -v c="$case" -v t="${times[$mode-$case]}" -v m="$m" -v b="$base" \
            'BEGIN { printf "  %-5s %-6s %s  median %.2f s  / no stills %.3f\n", mode, c, t, m, m / b }'
    done
done
