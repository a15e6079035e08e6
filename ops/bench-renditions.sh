#!/usr/bin/env bash
# What one pass over a ladder saves (export.renditions): a 1920x1080 project (two clips, a
# picture-in-picture with an opacity ramp, music) rendered as HLS with three renditions
# (1080p, 720p, 360p H.264 + AAC) in one job, against the same three renditions as three jobs
# of one rendition each, by `farm render` (embedded farm, one worker per core, --no-cache) and
# by `farm render --local`, in ROUNDS rounds (default 1) of every case in turn. Prints every
# time and, per mode, the ladder's time over the three single jobs' sum. Then checks that
# each rendition of the ladder decodes to the frames of its single job, and validates the
# package (Tests/Scripts/check_hls.py).
# SECONDS_LONG: the project's length (default 120, the issue's two minutes).
set -euo pipefail
cd "$(dirname "$0")/.."

farm="${FARM_BIN:-$(bash ops/build-release.sh farm farm-worker)}/farm"
dir="${BENCH_DIR:-.build/bench-renditions}"
length="${SECONDS_LONG:-120}"
mkdir -p "$dir"
source ops/bench-common.sh
make a.mp4 -f lavfi -i "testsrc2=size=1920x1080:rate=30:duration=$length" -c:v libx264 -preset veryfast -g 60 -pix_fmt yuv420p
make b.mp4 -f lavfi -i "testsrc=size=1280x720:rate=30:duration=$length" -c:v libx264 -preset veryfast -g 60 -pix_fmt yuv420p
make music.wav -f lavfi -i "aevalsrc=0.2*sin(2*PI*220*t)+0.1*sin(2*PI*277*t):s=48000:d=$length"
rung() { # NAME WIDTH HEIGHT CRF MAXRATE
    printf '{"name": "%s", "width": %s, "height": %s, "video": {"crf": %s, "maxrate": %s}}' "$@"
}
r1080=$(rung 1080p 1920 1080 21 6000000)
r720=$(rung 720p 1280 720 23 3000000)
r360=$(rung 360p 640 360 26 800000)
project() { # RENDITIONS
    cat <<JSON
{"output": {"width": 1920, "height": 1080, "fps": "30"},
 "export": {"video": {"codec": "h264", "preset": "veryfast"}, "renditions": [$1]},
 "assets": {"a": {"path": "a.mp4"}, "b": {"path": "b.mp4"}, "music": {"path": "music.wav"}},
 "tracks": [
   {"kind": "video", "items": [{"asset": "a", "at": "0", "duration": "$length"}]},
   {"kind": "video", "items": [{"asset": "b", "at": "2", "duration": "$((length - 4))", "frame": [0.6, 0.6, 0.35, 0.35],
                                "opacity": {"keys": [["0", 0], ["1", 1]]}}]},
   {"kind": "audio", "items": [{"asset": "music", "at": "0", "duration": "$length"}]}]}
JSON
}
project "$r1080, $r720, $r360" > "$dir/ladder.json"
project "$r1080" > "$dir/1080p.json"
project "$r720" > "$dir/720p.json"
project "$r360" > "$dir/360p.json"
data="$dir/farm"
# The data folder's private PostgreSQL made once, before any timed run.
sed 's/"duration": "[0-9]*"/"duration": "1"/g' "$dir/360p.json" > "$dir/warmup.json"
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
    for mode in farm local; do
        rm -rf "$dir/$mode-ladder" "$dir/$mode-ladder.m3u8"
        run "$mode" ladder "$mode-ladder.m3u8"
        for single in 1080p 720p 360p; do run "$mode" "$single" "$mode-$single.mp4"; done
    done
done
median() { printf '%s\n' $@ | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo "== ${length} s, canvas 1920x1080, renditions 1080p/720p/360p libx264 veryfast + AAC, $(nproc) cores, median of $rounds rounds"
for mode in farm local; do
    ladder=$(median ${times[$mode-ladder]})
    sum=0
    for single in 1080p 720p 360p; do
        m=$(median ${times[$mode-$single]})
        sum=$(awk -v a="$sum" -v b="$m" 'BEGIN { print a + b }')
        echo "  $mode $single alone: ${times[$mode-$single]} median $m s"
    done
    awk -v mode="$mode" -v t="${times[$mode-ladder]}" -v l="$ladder" -v s="$sum" \
        'BEGIN { printf "  %s ladder (HLS, 3 renditions): %s median %.2f s; three single jobs %.2f s; ladder / singles %.3f\n", mode, t, l, s, l / s }'
done
for single in 1080p 720p 360p; do
    a=$(ffmpeg -v error -i "$dir/farm-ladder/$single/index.m3u8" -f framemd5 - | grep -v '^#' | awk -F, '{ print $NF }' | md5sum)
    b=$(ffmpeg -v error -i "$dir/farm-$single.mp4" -map 0:v -f framemd5 - | grep -v '^#' | awk -F, '{ print $NF }' | md5sum)
    c=$(ffmpeg -v error -i "$dir/local-ladder/$single/index.m3u8" -f framemd5 - | grep -v '^#' | awk -F, '{ print $NF }' | md5sum)
    [[ $a == "$b" && $a == "$c" ]] || { echo "$single: the ladder's frames differ from its single job's or --local's" >&2; exit 1; }
    echo "  $single: farm ladder = its single job = --local ladder (frames ${a%% *})"
done
python3 Tests/Scripts/check_hls.py "$dir/farm-ladder.m3u8"
