#!/usr/bin/env bash
# What one pass over a ladder saves (export.renditions): a 1920x1080 project rendered as HLS
# with three renditions (1080p, 720p, 360p H.264 + AAC) in one job, against the same three
# renditions as three jobs of one rendition each, by `farm render` (embedded farm, one worker
# per core, --no-cache) and by `farm render --local`, in ROUNDS rounds (default 1) of every
# case in turn. Two projects (ops/renditions-project.py): `bare` (two clips and a
# picture-in-picture over music: the least there is to composite) and `edited` (cuts with
# dissolves across three sources, a moving picture-in-picture, titles, a graded output).
# Prints every time and, per project and mode, the ladder's time over the three single jobs'
# sum. Then checks that each rendition of the ladder decodes to the frames of its single job
# and of the --local ladder, and validates the package (Tests/Scripts/check_hls.py).
# SECONDS_LONG: the projects' length (default 120, the issue's two minutes).
# PROJECTS: which (default "bare edited").
set -euo pipefail
cd "$(dirname "$0")/.."

farm="${FARM_BIN:-$(bash ops/build-release.sh farm farm-worker)}/farm"
dir="${BENCH_DIR:-.build/bench-renditions}"
length="${SECONDS_LONG:-120}"
mkdir -p "$dir"
source ops/bench-common.sh
make a.mp4 -f lavfi -i "testsrc2=size=1920x1080:rate=30:duration=$length" -c:v libx264 -preset veryfast -g 60 -pix_fmt yuv420p
make b.mp4 -f lavfi -i "testsrc=size=1280x720:rate=30:duration=$length" -c:v libx264 -preset veryfast -g 60 -pix_fmt yuv420p
make c.mp4 -f lavfi -i "testsrc2=size=1920x1080:rate=30:duration=$length,hue=h=120,boxblur=2" -c:v libx264 -preset veryfast -g 60 -pix_fmt yuv420p
make music.wav -f lavfi -i "aevalsrc=0.2*sin(2*PI*220*t)+0.1*sin(2*PI*277*t):s=48000:d=$length"
# A 33-point look: a gentle S-curve, shadows toward teal, highlights toward warm.
[[ -s $dir/look.cube ]] || python3 -c '
import math
n = 33
print("LUT_3D_SIZE 33")
s = lambda v: v - 0.03 * math.sin(2 * math.pi * v)
for b in range(n):
    for g in range(n):
        for r in range(n):
            R, G, B = (s(c / (n - 1)) for c in (r, g, b))
            print("%.6f %.6f %.6f" % (min(1, R * 1.02 + 0.01), G, min(1, B * 0.97 + 0.02 * (1 - G))))
' > "$dir/look.cube"
rung() { # NAME WIDTH HEIGHT CRF MAXRATE
    printf '{"name": "%s", "width": %s, "height": %s, "video": {"crf": %s, "maxrate": %s}}' "$@"
}
r1080=$(rung 1080p 1920 1080 21 6000000)
r720=$(rung 720p 1280 720 23 3000000)
r360=$(rung 360p 640 360 26 800000)
projects="${PROJECTS:-bare edited}"
for kind in $projects; do
    python3 ops/renditions-project.py "$kind" "$length" "[$r1080, $r720, $r360]" > "$dir/$kind-ladder.json"
    python3 ops/renditions-project.py "$kind" "$length" "[$r1080]" > "$dir/$kind-1080p.json"
    python3 ops/renditions-project.py "$kind" "$length" "[$r720]" > "$dir/$kind-720p.json"
    python3 ops/renditions-project.py "$kind" "$length" "[$r360]" > "$dir/$kind-360p.json"
done
data="$dir/farm"
# The data folder's private PostgreSQL made once, before any timed run.
python3 ops/renditions-project.py bare 5 "[$r360]" > "$dir/warmup.json"
"$farm" render "$dir/warmup.json" -o "$dir/warmup.mp4" --data "$data" >/dev/null 2>&1

rounds="${ROUNDS:-1}"
declare -A times
run() { # MODE CASE OUTPUT
    local flags=(--no-cache --data "$data")
    [[ $1 == local ]] && flags=(--local)
    local start
    start=$(now)
    "$farm" render "$dir/$2.json" -o "$dir/$3" "${flags[@]}" >/dev/null 2>&1
    times[$1-$2]+="$(elapsed "$start") "
}
for ((round = 0; round < rounds; round++)); do
    for kind in $projects; do
        for mode in farm local; do
            rm -rf "$dir/$mode-$kind-ladder" "$dir/$mode-$kind-ladder.m3u8"
            run "$mode" "$kind-ladder" "$mode-$kind-ladder.m3u8"
            for single in 1080p 720p 360p; do run "$mode" "$kind-$single" "$mode-$kind-$single.mp4"; done
        done
    done
done
median() { printf '%s\n' $@ | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
frames() { ffmpeg -v error -i "$1" -map 0:v -f framemd5 - | grep -v '^#' | awk -F, '{ print $NF }' | md5sum; }
for kind in $projects; do
    echo "== $kind: ${length} s, canvas 1920x1080, renditions 1080p/720p/360p libx264 veryfast + AAC, $(nproc) cores, median of $rounds rounds"
    for mode in farm local; do
        ladder=$(median ${times[$mode-$kind-ladder]})
        sum=0
        for single in 1080p 720p 360p; do
            m=$(median ${times[$mode-$kind-$single]})
            sum=$(awk -v a="$sum" -v b="$m" 'BEGIN { print a + b }')
            echo "  $mode $single alone: ${times[$mode-$kind-$single]} median $m s"
        done
        awk -v mode="$mode" -v t="${times[$mode-$kind-ladder]}" -v l="$ladder" -v s="$sum" \
            'BEGIN { printf "  %s ladder (HLS, 3 renditions): %s median %.2f s; three single jobs %.2f s; ladder / singles %.3f\n", mode, t, l, s, l / s }'
    done
    for single in 1080p 720p 360p; do
        a=$(frames "$dir/farm-$kind-ladder/$single/index.m3u8")
        b=$(frames "$dir/farm-$kind-$single.mp4")
        c=$(frames "$dir/local-$kind-ladder/$single/index.m3u8")
        [[ $a == "$b" && $a == "$c" ]] || { echo "$kind $single: the ladder's frames differ from its single job's or --local's" >&2; exit 1; }
        echo "  $single: farm ladder = its single job = --local ladder (frames ${a%% *})"
    done
    python3 Tests/Scripts/check_hls.py "$dir/farm-$kind-ladder.m3u8"
done
