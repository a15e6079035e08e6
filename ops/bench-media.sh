#!/usr/bin/env bash
# Pinning at the cost of what is read. A 2-second cut from the middle of a 4.4 GB source (47 s
# of raw 1920x1080 video in Matroska), rendered to 320x180 h264. Each step starts with the
# source out of the page cache (POSIX_FADV_DONTNEED):
#   - farm validate: parsing and probing, what submit does besides pinning;
#   - farm submit to a running farm (farm serve with no workers): validation, pins, inserts;
#   - farm render --local;
#   - farm render (embedded: private PostgreSQL, coordinator, 2 workers), each worker's
#     read_bytes (/proc/PID/io, bytes fetched from storage) sampled until it exits, and what
#     each task says its pinned reads cost (blocks fetched, bytes demuxed, seeks).
# Prints the times, farm/--local, and the bytes read against the bytes the cut's frames take.
set -euo pipefail
cd "$(dirname "$0")/.."
source ops/bench-common.sh

bin="$(bash ops/build-release.sh farm farm-worker)"
farm="$bin/farm"
dir="${BENCH_DIR:-.build/bench-media}"
mkdir -p "$dir"
make big.mkv -f lavfi -i testsrc2=size=1920x1080:rate=30:duration=47 -c:v rawvideo -pix_fmt yuv420p
size=$(stat -c %s "$dir/big.mkv")
cat > "$dir/cut.json" <<'JSON'
{
  "output": {"width": 320, "height": 180, "fps": "30"},
  "export": {"container": "mp4", "video": {"codec": "h264", "preset": "veryfast"}},
  "assets": {"big": {"path": "big.mkv"}},
  "tracks": [{"kind": "video", "items": [{"asset": "big", "at": "0", "duration": "2", "source": {"start": "20"}}]}]
}
JSON
# Cold media: the source's pages leave the page cache (the programs and libraries stay, so
# read_bytes counts media, not the binaries a process loads).
cold() {
    python3 -c 'import os, sys; fd = os.open(sys.argv[1], os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)' \
        "$dir/big.mkv"
}
rm -rf "$dir/farm" "$dir/serve" "$dir"/out-*.mp4

cold
start=$(now)
"$farm" validate "$dir/cut.json" >/dev/null
validate_time=$(elapsed "$start")

"$farm" serve --data "$dir/serve" --bind tcp://127.0.0.1:47123 > "$dir/serve.log" 2>&1 &
serve=$!
# Ready once it listens (a `farm status` before then would start the private server itself).
for _ in $(seq 300); do grep -q "coordinator listening" "$dir/serve.log" 2>/dev/null && break; sleep 0.2; done
cold
start=$(now)
"$farm" submit "$dir/cut.json" -o "$PWD/$dir/out-submitted.mp4" --data "$dir/serve" >/dev/null
submit_time=$(elapsed "$start")
kill "$serve" 2>/dev/null || true; wait "$serve" || true

cold
start=$(now)
"$farm" render "$dir/cut.json" -o "$dir/out-local.mp4" --local >/dev/null 2>&1
local_time=$(elapsed "$start")

# The embedded farm's private PostgreSQL once, so the timed run starts it as a user's second
# render would; then cold caches for the media.
"$farm" render "$dir/cut.json" -o "$dir/out-warmup.mp4" --data "$dir/farm" >/dev/null 2>&1
rm -f "$dir/farm/logs/"*.log
cold
declare -A read_bytes
start=$(now)
"$farm" render "$dir/cut.json" -o "$dir/out-farm.mp4" --data "$dir/farm" --workers 2 --no-cache >/dev/null 2>&1 &
render=$!
while kill -0 "$render" 2>/dev/null; do
    for pid in $(pgrep -f "farm-worker.*$dir/farm" || true); do
        bytes=$(awk '/^read_bytes/ { print $2 }' "/proc/$pid/io" 2>/dev/null || echo 0)
        [[ -n "$bytes" && "$bytes" -ge "${read_bytes[$pid]:-0}" ]] && read_bytes[$pid]=$bytes
    done
    sleep 0.05
done
wait "$render"
farm_time=$(elapsed "$start")

frame_bytes=$((1920 * 1080 * 3 / 2))
echo "== a 2 s cut from a $(awk -v s="$size" 'BEGIN { printf "%.2f GB", s / 1e9 }') source, not in the page cache, $(nproc) cores"
awk -v v="$validate_time" -v s="$submit_time" -v l="$local_time" -v f="$farm_time" 'BEGIN {
    printf "  farm validate:         %6.2f s\n", v
    printf "  farm submit:           %6.2f s  (%.2f s beyond validation)\n", s, s - v
    printf "  farm render --local:   %6.2f s\n", l
    printf "  farm render (2 wkrs):  %6.2f s  (%.2f x --local)\n", f, f / l
}'
echo "  the cut's 60 frames take $((60 * frame_bytes / 1000000)) MB of the file; a block is 4 MiB"
for pid in "${!read_bytes[@]}"; do
    echo "  worker $pid read ${read_bytes[$pid]} bytes from storage (read_bytes)"
done
echo "  what each task's pinned reads cost, from the workers' logs:"
grep -h "rendered:" "$dir/farm/logs/"*.log | sed 's/.*\] /    /' 
