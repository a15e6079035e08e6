#!/usr/bin/env bash
# What pinning numbered frames costs a job: the same 100 s of a 64x36 PNG sequence (2,400
# frames) rendered by `farm render` (embedded farm, one worker per core, --no-cache, 24-frame
# chunks) from a folder of 2,400 frames and from one of 100,000 (FRAMES), in ROUNDS rounds
# (default 2). The job reads the same frames from both; only the sequence's length differs,
# which is what the submission's stamp (a stat per frame, once) and the workers' checks (a
# block of 256 numbers for the frames each chunk reads) must not make the job pay for again
# per chunk. Prints each time and the long sequence's over the short one's.
set -euo pipefail
cd "$(dirname "$0")/.."

farm="${FARM_BIN:-$(bash ops/build-release.sh farm farm-worker)}/farm"
dir="${BENCH_DIR:-.build/bench-sequence-pins}"
frames="${FRAMES:-100000}"
mkdir -p "$dir/long" "$dir/short"
source ops/bench-common.sh
make frame.png -f lavfi -i testsrc2=size=64x36:rate=24 -frames:v 1
# Hard links: a stat costs the same, and 100,000 frames take no room (a file takes at most
# 65,000 links on ext4: one copy of the frame per 50,000).
python3 - "$dir" "$frames" <<'PY'
import os, shutil, sys
folder, count = sys.argv[1], int(sys.argv[2])
for name, n in (("long", count), ("short", 2400)):
    for number in range(1, n + 1):
        path = f"{folder}/{name}/p.{number:06d}.png"
        source = f"{folder}/frame-{number // 50000}.png"
        if not os.path.exists(source):
            shutil.copy(f"{folder}/frame.png", source)
        if not os.path.exists(path):
            os.link(source, path)
PY
for name in long short; do
    cat > "$dir/$name.json" <<JSON
{"output": {"width": 64, "height": 36, "fps": "24"}, "export": {"container": "mkv", "video": {"codec": "ffv1"}},
 "assets": {"p": {"path": "$name/p.%06d.png", "frameRate": "24"}},
 "tracks": [{"kind": "video", "items": [{"asset": "p", "at": "0", "duration": "100"}]}]}
JSON
done
data="$dir/farm"
"$farm" render "$dir/short.json" -o "$dir/warmup.mkv" --data "$data" --no-cache >/dev/null 2>&1
declare -A times
for ((round = 0; round < ${ROUNDS:-2}; round++)); do
    for name in short long; do
        start=$(now)
        "$farm" render "$dir/$name.json" -o "$dir/$name.mkv" --data "$data" --no-cache --chunk-frames 24 >/dev/null 2>&1
        times[$name]+="$(elapsed "$start") "
    done
done
median() { printf '%s\n' $@ | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
short=$(median ${times[short]})
long=$(median ${times[long]})
echo "== 2,400 frames read in 100 chunks of 24, $(nproc) cores"
echo "  from a 2,400-frame sequence: ${times[short]} median $short s"
echo "  from a $frames-frame sequence: ${times[long]} median $long s"
awk -v a="$long" -v b="$short" 'BEGIN { printf "  long / short %.3f\n", a / b }'
cmp <(ffmpeg -v error -i "$dir/short.mkv" -f framemd5 - | grep -v '^#') \
    <(ffmpeg -v error -i "$dir/long.mkv" -f framemd5 - | grep -v '^#') && echo "  the two renders decode to the same frames"
