#!/usr/bin/env bash
# A simulated cluster on this one machine (root). Each machine is a CPU cgroup with a quota
# (v1 cpu.cfs_quota_us or v2 cpu.max): the coordinator and its PostgreSQL share one, and each
# worker (one slot, one encoder thread) has its own. With --link, every machine also gets its
# own network namespace, joined through a bridge by a veth pair shaped with netem (rate and
# delay on both ends), and the coordinator listens on the bridge's network. The project is
# submitted from outside every machine with `farm submit --watch`; the wall time runs from the
# submit to the joined file. Prints, for each N, the time, the speed-up over N = 1 and the
# efficiency (speed-up / N), and checks that every N's file decodes to the same frames and
# samples. Figures are simulated machines, not real ones.
#
#   ops/bench-cluster.sh [--workers "1 2 4 8 16"] [--quota 0.12] [--coordinator-quota 0.25]
#                        [--size 320x180] [--minutes 3] [--chunk-seconds 2] [--link 100mbit:20ms]
#                        [--baseline SECONDS]
# --baseline gives the one-worker time of an earlier run instead of measuring N = 1 again (the
# speed-up of a shaped series against the same project's unshaped single machine).
set -euo pipefail
cd "$(dirname "$0")/.."
source ops/bench-common.sh

workers="1 2 4 8 16"
quota=0.12
coordinator_quota=0.25
size=320x180
minutes=3
chunk_seconds=2
link=""
baseline=""
while (($#)); do
    case "$1" in
    --workers) workers="$2"; shift 2 ;;
    --quota) quota="$2"; shift 2 ;;
    --coordinator-quota) coordinator_quota="$2"; shift 2 ;;
    --size) size="$2"; shift 2 ;;
    --minutes) minutes="$2"; shift 2 ;;
    --chunk-seconds) chunk_seconds="$2"; shift 2 ;;
    --link) link="$2"; shift 2 ;;
    --baseline) baseline="$2"; shift 2 ;;
    *) echo "usage: $0 [--workers LIST] [--quota CORES] [--coordinator-quota CORES] [--size WxH]" \
        "[--minutes M] [--chunk-seconds S] [--link RATE:DELAY] [--baseline SECONDS]" >&2; exit 64 ;;
    esac
done
[[ $(id -u) == 0 ]] || { echo "bench-cluster: needs root (cgroups, network namespaces)" >&2; exit 1; }

# FARM_BIN: a folder holding another build's farm and farm-worker, to compare builds.
bin="${FARM_BIN:-$(bash ops/build-release.sh farm farm-worker)}"
farm="$bin/farm"
dir="$PWD/${BENCH_DIR:-.build/bench-cluster}"
mkdir -p "$dir/media"
width=${size%x*}
height=${size#*x}

# Media and the project: cuts with dissolves, an eased picture-in-picture, titles and music.
m="$dir/media"
make media/a.mp4 -f lavfi -i testsrc2=size=640x360:rate=30:duration=60 -c:v libx264 -preset veryfast -g 30 -pix_fmt yuv420p
make media/b.mp4 -f lavfi -i smptehdbars=size=640x360:rate=30:duration=60 -vf "hue=H=t" -c:v libx264 -preset veryfast -g 30 -pix_fmt yuv420p
make media/life.mp4 -f lavfi -i "life=size=320x180:rate=30:mold=10:ratio=0.4" -t 60 -c:v libx264 -preset veryfast -g 30 -pix_fmt yuv420p
make media/music.wav -f lavfi -i "sine=frequency=440:duration=60,volume=0.3" -ac 2 -ar 48000
python3 - "$dir/project.json" "$minutes" "$width" "$height" <<'PY'
import json, sys
path, minutes, width, height = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
seconds = 60 * minutes
main, transitions, pip, titles, music = [], [], [], [], []
for k in range(seconds // 10):
    main.append({"asset": "ab"[k % 2], "at": str(10 * k), "duration": "10",
                 "source": {"start": str((7 * k) % 45)}, "fit": "cover"})
    if k:
        transitions.append({"between": [k - 1, k], "type": "dissolve", "duration": "0.5"})
for k in range(seconds // 30):
    pip.append({"asset": "life", "at": str(30 * k + 5), "duration": "20", "fit": "cover",
                "frame": {"keys": [["0", [0.64, 0.06, 0.3, 0.3], "ease-in-out"], ["20", [0.06, 0.64, 0.3, 0.3]]]},
                "opacity": {"keys": [["0", 0, "ease-out"], ["1", 1], ["19", 1, "ease-in"], ["20", 0]]}})
    titles.append({"title": {"text": f"Part {k + 1}", "size": 28, "outline": {"width": 2}}, "at": str(30 * k),
                   "duration": "4", "frame": [0.05, 0.4, 0.9, 0.2],
                   "opacity": {"keys": [["0", 0, "ease-out"], ["0.5", 1], ["3.5", 1, "ease-in"], ["4", 0]]}})
for k in range(minutes):
    music.append({"asset": "music", "at": str(60 * k), "duration": "60",
                  "volume": {"keys": [["0", 0], ["1", 0.8], ["59", 0.8], ["60", 0]]}})
project = {
    "output": {"width": width, "height": height, "fps": "30", "audio": {"sampleRate": 48000, "channels": 2}},
    "export": {"container": "mp4", "video": {"codec": "h264", "crf": 23, "preset": "veryfast"},
               "audio": {"codec": "aac", "bitrate": 128000}},
    "assets": {"a": {"path": "media/a.mp4"}, "b": {"path": "media/b.mp4"}, "life": {"path": "media/life.mp4"},
               "music": {"path": "media/music.wav"}},
    "tracks": [
        {"kind": "video", "name": "main", "items": main, "transitions": transitions},
        {"kind": "video", "name": "picture in picture", "items": pip},
        {"kind": "video", "name": "titles", "items": titles},
        {"kind": "audio", "name": "music", "items": music},
    ],
}
json.dump(project, open(path, "w"), indent=1)
PY

# Machines: CPU cgroups.
if [[ -f /sys/fs/cgroup/cgroup.controllers ]]; then
    cgroot=/sys/fs/cgroup/farm-bench
    mkdir -p "$cgroot"
    echo +cpu > /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null || true
    echo +cpu > "$cgroot/cgroup.subtree_control" 2>/dev/null || true
else
    cgroot=/sys/fs/cgroup/cpu/farm-bench
    mkdir -p "$cgroot"
fi
machine() { # NAME CORES: creates the cgroup
    local group="$cgroot/$1" period=100000
    mkdir -p "$group"
    local us
    us=$(awk -v c="$2" -v p=$period 'BEGIN { printf "%d", c * p }')
    if [[ -f "$group/cpu.max" ]]; then echo "$us $period" > "$group/cpu.max"
    else echo $period > "$group/cpu.cfs_period_us"; echo "$us" > "$group/cpu.cfs_quota_us"; fi
}
procs_file() { [[ -f "$cgroot/$1/cgroup.procs" ]] && echo "$cgroot/$1/cgroup.procs" || echo "$cgroot/$1/tasks"; }
# on MACHINE CMD... &: runs CMD in the machine's cgroup (and network namespace, with --link);
# every step execs, so $! is CMD's own process.
on() {
    local name="$1"; shift
    local prefix=()
    [[ -n "$link" ]] && prefix=(ip netns exec "fbc-$name")
    exec bash -c 'echo $$ > "$1"; shift; exec "$@"' _ "$(procs_file "$name")" "${prefix[@]}" "$@"
}

# Links: a bridge namespace, and each machine's namespace plugged into it by a shaped veth.
namespaces=()
address_of() { echo "10.79.$(( $1 / 250 )).$(( $1 % 250 + 2 ))"; }
network() { # NAME INDEX
    [[ -n "$link" ]] || return 0
    local rate=${link%:*} delay=${link#*:}
    local half
    half=$(awk -v d="${delay%ms}" 'BEGIN { printf "%gms", d / 2 }')
    if ((${#namespaces[@]} == 0)); then
        ip netns add fbc-bridge; namespaces+=(fbc-bridge)
        ip -n fbc-bridge link add br0 type bridge; ip -n fbc-bridge link set br0 up
    fi
    ip netns add "fbc-$1"; namespaces+=("fbc-$1")
    ip link add "fi$2" type veth peer name "fo$2"
    ip link set "fi$2" netns "fbc-$1"; ip link set "fo$2" netns fbc-bridge
    ip -n fbc-bridge link set "fo$2" master br0 up
    ip -n "fbc-$1" addr add "$(address_of "$2")/16" dev "fi$2"
    ip -n "fbc-$1" link set "fi$2" up; ip -n "fbc-$1" link set lo up
    # Half the delay each way: the round trip is the link's delay. A kernel without netem
    # (sch_netem) gets the rate alone, from tbf, and the summary says so.
    local end
    for end in "fbc-$1 fi$2" "fbc-bridge fo$2"; do
        set -- $end
        ip netns exec "$1" tc qdisc add dev "$2" root netem rate "$rate" delay "$half" limit 10000 2>/dev/null ||
            { no_delay=yes; ip netns exec "$1" tc qdisc add dev "$2" root tbf rate "$rate" burst 64kb latency 100ms; }
    done
}
no_delay=""
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    for ns in "${namespaces[@]}"; do ip netns del "$ns" 2>/dev/null || true; done
    for group in "$cgroot"/*/; do rmdir "$group" 2>/dev/null || true; done
    rmdir "$cgroot" 2>/dev/null || true
}
trap cleanup EXIT
trap "exit 130" INT TERM

data="$dir/farm"
rm -rf "$data" "$dir"/out-*.mp4
machine coordinator "$coordinator_quota"
network coordinator 0
endpoint="tcp://127.0.0.1:47200"
serve_flags=()
if [[ -n "$link" ]]; then endpoint="tcp://$(address_of 0):47200"; serve_flags=(--insecure); fi
on coordinator "$farm" serve --data "$data" --bind "$endpoint" --output-root "$dir" "${serve_flags[@]}" \
    > "$dir/serve.log" 2>&1 &
pids+=($!)
# Ready once it listens (a `farm status` before then would start the private server itself).
for _ in $(seq 300); do grep -q "coordinator listening" "$dir/serve.log" 2>/dev/null && break; sleep 0.2; done

max=0
for n in $workers; do ((n > max)) && max=$n; done
for i in $(seq "$max"); do machine "w$i" "$quota"; network "w$i" "$i"; done

declare -A times hashes
for n in $workers; do
    started=()
    for i in $(seq "$n"); do
        on "w$i" "$bin/farm-worker" --coordinator "$endpoint" --id "w$i" --slots 1 --threads 1 \
            --scratch "$dir/scratch/w$i" > "$dir/worker-$i.log" 2>&1 &
        started+=($!)
    done
    for _ in $(seq 300); do
        online=$("$farm" workers --data "$data" --json 2>/dev/null | python3 -c \
            'import json, sys; print(sum(1 for w in json.load(sys.stdin) if w.get("state") != "offline"))' || echo 0)
        ((online >= n)) && break
        sleep 0.2
    done
    out="$dir/out-$n.mp4"
    start=$(now)
    "$farm" submit "$dir/project.json" -o "$out" --data "$data" --chunk-seconds "$chunk_seconds" --no-cache --watch >/dev/null 2>&1
    times[$n]=$(elapsed "$start")
    for pid in "${started[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${started[@]}"; do wait "$pid" 2>/dev/null || true; done
    "$farm" workers --data "$data" >/dev/null 2>&1 || true
    hashes[$n]=$(ffmpeg -hide_banner -nostdin -v error -i "$out" -f framemd5 - | grep -v '^#' | md5sum | cut -c1-12)
    echo "  N=$n: ${times[$n]} s, frames and samples ${hashes[$n]}" >&2
done

first=${workers%% *}
base_time=${times[$first]}
base_n=$first
if [[ -n "$baseline" ]]; then base_time=$baseline; base_n=1; fi
echo "== simulated cluster: $minutes min at $size, ${chunk_seconds} s chunks, h264 + aac;" \
    "coordinator + PostgreSQL on $coordinator_quota core, each worker on $quota core${link:+, links $link}"
[[ -n "$no_delay" ]] && echo "  links: the rate only (tbf); this kernel has no netem, so the delay is not simulated"
printf "  %4s %10s %9s %11s  %s\n" N "wall (s)" speed-up efficiency "frames and samples"
same=yes
for n in $workers; do
    awk -v n="$n" -v t="${times[$n]}" -v b="$base_time" -v f="$base_n" -v h="${hashes[$n]}" 'BEGIN {
        s = b * f / t; printf "  %4d %10.1f %9.2f %11.2f  %s\n", n, t, s, s / n, h }'
    [[ "${hashes[$n]}" == "${hashes[$first]}" ]] || same=no
done
echo "  identical output for every N: $same"
