#!/usr/bin/env bash
# A farm deployed on several hosts from the Debian package alone, then made to survive faults.
#   bash ops/test-deploy.sh            (as root: it makes network namespaces and mounts)
#
# Each host is a network namespace with its own address on a bridge, running programs chrooted
# into its own root file system: Debian bookworm made by debootstrap, with nothing installed but
# the farm's .deb and what apt resolves from its Depends (no Swift, no source tree). The hosts:
#   db        10.77.0.2   PostgreSQL (this machine's server binaries, in the host's namespace)
#   coord     10.77.0.3   farm-coordinator.service, CURVE keys, --output-root /srv/renders, HTTP
#   w1 w2 w3  10.77.0.11… farm-worker.service, the media on a shared read-only mount
#   w4        10.77.0.14  a render node that joins mid-job, timed from a bare root file system
#   client    10.77.0.20  `farm submit`, and a second job over the HTTP API
# The units are started as their files say (ops/deploy/run-unit.py). During the first job one
# worker host is killed, the coordinator host is killed and started again, and w4 joins. Both
# outputs must equal `farm render --local` of the same projects (decoded frames and samples),
# and no chunk that was accepted may be rendered again.
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$(pwd)"

[[ $(id -u) -eq 0 ]] || { echo "test-deploy: run as root (namespaces, mounts, chroot)" >&2; exit 1; }
state="${FARM_DEPLOY_DIR:-/var/tmp/farm-deploy}"
mkdir -p "$state"
# One run at a time: the hosts' names and addresses are fixed.
exec 9>"$state/lock"
flock -n 9 || { echo "test-deploy: another run holds $state/lock" >&2; exit 1; }
log() { printf '%s test-deploy: %s\n' "$(date +%T)" "$*" >&2; }
now() { date +%s.%N; }
since() { awk "BEGIN { printf \"%.1f\", $(now) - $1 }"; }

hosts=(db coord w1 w2 w3 w4 client)
declare -A address=([db]=10.77.0.2 [coord]=10.77.0.3 [w1]=10.77.0.11 [w2]=10.77.0.12 [w3]=10.77.0.13
    [w4]=10.77.0.14 [client]=10.77.0.20)

cleanup() {
    set +e
    for host in "${hosts[@]}"; do
        ip netns pids "farm-$host" 2>/dev/null | xargs -r kill -9
    done
    sleep 0.5
    for host in "${hosts[@]}"; do
        for mount in $(awk -v root="$state/hosts/$host/root" '$2 ~ "^" root {print $2}' /proc/mounts | sort -r); do
            umount -l "$mount"
        done
        ip netns del "farm-$host" 2>/dev/null
    done
    for mount in $(awk -v root="$state/bare" '$2 ~ "^" root {print $2}' /proc/mounts | sort -r); do umount -l "$mount"; done
    ip link del farmbr0 2>/dev/null
}
trap cleanup EXIT
cleanup

# --- Artefacts: the package, and a bookworm root file system with it installed. ----------------
bash ops/install-packages.sh test-deploy iproute2 postgresql
deb="$(bash ops/package-deb.sh "$state/deb")"
log "package: $deb ($(du -h "$deb" | cut -f1))"

bash ops/debootstrap-bookworm.sh "$state/bookworm"

# chroot_mounts ROOT: what a chrooted program needs of the kernel, and the network's resolver.
chroot_mounts() {
    mount -t proc proc "$1/proc"
    mount --rbind /sys "$1/sys" && mount --make-rslave "$1/sys"
    mount --rbind /dev "$1/dev" && mount --make-rslave "$1/dev"
    cp -L /etc/resolv.conf "$1/etc/resolv.conf"
}

# install_farm ROOT: the .deb and its Depends, by apt, as an operator installs it. Packages
# downloaded once are kept in $state/apt-cache.
install_farm() {
    mkdir -p "$state/apt-cache/partial" "$1/var/cache/apt/archives"
    mount --bind "$state/apt-cache" "$1/var/cache/apt/archives"
    cp "$deb" "$1/tmp/farm.deb"
    chroot "$1" apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive chroot "$1" apt-get install -y -qq --no-install-recommends /tmp/farm.deb >/dev/null
    umount "$1/var/cache/apt/archives"
    rm "$1/tmp/farm.deb"
}

installed="$state/installed-$(sha256sum "$deb" | cut -c1-12)"
if [[ ! -x "$installed/usr/bin/farm" ]]; then
    log "installing the package into a copy of the bare root file system"
    rm -rf "$state"/installed-* "$state/bare"
    cp -a "$state/bookworm" "$state/bare"
    chroot_mounts "$state/bare"
    start=$(now)
    install_farm "$state/bare"
    log "installed in $(since "$start") s"
    for mount in $(awk -v root="$state/bare" '$2 ~ "^" root {print $2}' /proc/mounts | sort -r); do umount -l "$mount"; done
    mv "$state/bare" "$installed"
fi
if chroot "$installed" ldd /usr/bin/farm /usr/bin/farm-worker | grep -q "not found\|/opt/swift"; then
    log "FAILED: the installed binaries need libraries the package does not bring"
    chroot "$installed" ldd /usr/bin/farm | grep "not found\|/opt/swift" >&2
    exit 1
fi
mount -t proc proc "$installed/proc"
log "ldd: no library missing, none under /opt/swift; $(chroot "$installed" farm --version | tr '\n' ' ')"
umount "$installed/proc"

# --- Hosts: a namespace and an overlay of the installed root each; the media shared read-only. -
media="$state/media"
if [[ ! -s "$media/clip.mp4" ]]; then
    mkdir -p "$media"
    ffmpeg -hide_banner -nostdin -v error -y -f lavfi -i testsrc2=size=640x360:rate=30:duration=24 \
        -f lavfi -i sine=frequency=440:duration=24 -c:v libx264 -preset veryfast -g 30 -pix_fmt yuv420p \
        -c:a aac "$media/clip.mp4"
    ffmpeg -hide_banner -nostdin -v error -y -f lavfi -i "color=0x2050a0:size=320x180:rate=25:duration=24,drawgrid=w=20:h=20:color=white" \
        -c:v libx264 -preset veryfast -g 25 -pix_fmt yuv420p "$media/pip.mp4"
fi
# examples/basic.json and its media (as examples/README.md makes them), for `--local` on a host.
if [[ ! -s "$media/examples/media/music.wav" ]]; then
    mkdir -p "$media/examples/media"
    ffmpeg -hide_banner -nostdin -v error -y -f lavfi -i testsrc2=size=1280x720:rate=30:duration=8 -f lavfi \
        -i sine=frequency=440:sample_rate=48000:duration=8 -c:v libx264 -preset veryfast -pix_fmt yuv420p -c:a aac \
        -ac 2 "$media/examples/media/clip-a.mp4"
    ffmpeg -hide_banner -nostdin -v error -y -f lavfi -i testsrc=size=1280x720:rate=25:duration=8 -c:v libx264 \
        -preset veryfast -pix_fmt yuv420p "$media/examples/media/clip-b.mp4"
    ffmpeg -hide_banner -nostdin -v error -y -f lavfi -i sine=frequency=220:beep_factor=4:sample_rate=48000:duration=12 \
        -ac 2 -c:a pcm_s16le "$media/examples/media/music.wav"
fi
cp examples/basic.json "$media/examples/basic.json"
cat >"$media/job.json" <<'EOF'
{
  "output": {"width": 640, "height": 360, "fps": 30},
  "export": {"video": {"codec": "h264", "preset": "veryfast", "gop": 30}},
  "assets": {"clip": {"path": "clip.mp4"}, "pip": {"path": "pip.mp4"}},
  "tracks": [
    {"kind": "video", "items": [{"asset": "clip", "at": 0, "duration": 24}]},
    {"kind": "video", "items": [{"asset": "pip", "at": 2, "duration": 20, "frame": [0.6, 0.05, 0.35, 0.35]}]},
    {"kind": "video", "items": [{"title": {"text": "deployed", "size": 40}, "at": 0, "duration": 24}]}
  ]
}
EOF

ip link add farmbr0 type bridge
ip addr add 10.77.0.1/24 dev farmbr0
ip link set farmbr0 up
# make_host NAME: the namespace, its veth on the bridge, and its root: an overlay of ROOTFS
# (default: the installed one) with /proc, /sys, /dev and the media mounted.
make_host() {
    local host=$1 lower=${2:-$installed} source=${3:-$media} dir="$state/hosts/$1"
    ip netns add "farm-$host"
    ip link add "fv-$host" type veth peer name eth0 netns "farm-$host"
    ip link set "fv-$host" master farmbr0 up
    ip -n "farm-$host" addr add "${address[$host]}/24" dev eth0
    ip -n "farm-$host" link set eth0 up
    ip -n "farm-$host" link set lo up
    rm -rf "$dir" && mkdir -p "$dir/upper" "$dir/work" "$dir/root"
    mount -t overlay overlay -o "lowerdir=$lower,upperdir=$dir/upper,workdir=$dir/work" "$dir/root"
    chroot_mounts "$dir/root"
    mkdir -p "$dir/root/mnt/media"
    mount --bind -o ro "$source" "$dir/root/mnt/media"
}
root() { echo "$state/hosts/$1/root"; }
# on HOST COMMAND...: run in the host, as root.
on() { local host=$1; shift; ip netns exec "farm-$host" chroot "$(root "$host")" "$@"; }
# start_unit HOST UNIT: start it as its unit file says; prints its pid.
start_unit() { python3 ops/deploy/run-unit.py "$(root "$1")" "farm-$1" "$2" "$state/hosts/$1.log"; }

# w2 reads its own copy of the media, as a node with media rsync'd to its disks does: the same
# bytes and modification times, another inode and ctime.
rm -rf "$state/media-w2" && cp -r --preserve=timestamps "$media" "$state/media-w2"
for host in db coord w1 w3 client; do make_host "$host"; done
make_host w2 "$installed" "$state/media-w2"

# The units as installed, checked by systemd itself on a host that has it (the client's; the
# farm does not need systemd, so the package does not bring it).
mkdir -p "$state/apt-cache/partial" && mount --bind "$state/apt-cache" "$(root client)/var/cache/apt/archives"
on client apt-get update -qq >/dev/null
DEBIAN_FRONTEND=noninteractive on client apt-get install -y -qq --no-install-recommends systemd man-db >/dev/null
umount "$(root client)/var/cache/apt/archives"
on client systemd-analyze verify /lib/systemd/system/farm-coordinator.service /lib/systemd/system/farm-worker.service
log "systemd-analyze verify: the installed units pass"

# The database host: this machine's PostgreSQL, in its own namespace, listening on its address.
pgdata="$state/pgdata"
rm -rf "$pgdata" && install -d -o postgres -g postgres "$pgdata"
pgbin="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)"
runuser -u postgres -- "$pgbin/initdb" -D "$pgdata" -A trust -U postgres >/dev/null
echo "host all all 10.77.0.0/24 trust" >>"$pgdata/pg_hba.conf"
ip netns exec farm-db runuser -u postgres -- "$pgbin/pg_ctl" -D "$pgdata" -l "$pgdata/server.log" -w \
    -o "-c listen_addresses=${address[db]} -c unix_socket_directories=$pgdata" start >/dev/null
ip netns exec farm-db runuser -u postgres -- "$pgbin/createuser" -h "$pgdata" farm
ip netns exec farm-db runuser -u postgres -- "$pgbin/createdb" -h "$pgdata" -O farm farm
database="postgresql://farm@${address[db]}/farm"

# The coordinator host, configured in its env file as docs/install.md says.
printf 'DATABASE_URL=%s\nFARM_SERVE_OPTIONS=--http %s:8080 --media-root /mnt/media\n' "$database" "${address[coord]}" \
    >>"$(root coord)/etc/farm/coordinator.env"
coordinator=$(start_unit coord farm-coordinator.service)
for _ in $(seq 100); do on client bash -c "exec 3<>/dev/tcp/${address[coord]}/8080" 2>/dev/null && break; sleep 0.2; done
cp "$(root coord)/etc/farm/keys/coordinator.pub" "$state/coordinator.pub"

# worker_host HOST: its key, admitted by the coordinator, and its env file; then the unit.
worker_host() {
    local host=$1 dir
    dir="$(root "$host")"
    on "$host" farm keys generate "$host" --dir /etc/farm/keys >/dev/null
    on "$host" chown farm:farm "/etc/farm/keys/$host.key"
    cp "$state/coordinator.pub" "$dir/etc/farm/keys/coordinator.pub"
    cp "$dir/etc/farm/keys/$host.pub" "$(root coord)/etc/farm/workers/$host.pub"
    printf 'FARM_COORDINATOR=tcp://%s:5555\nFARM_MEDIA_ROOT=/mnt/media\nFARM_SLOTS=1\n' "${address[coord]}" \
        >>"$dir/etc/farm/worker.env"
    printf 'FARM_KEY=/etc/farm/keys/%s.key\nFARM_COORDINATOR_KEY=/etc/farm/keys/coordinator.pub\n' "$host" \
        >>"$dir/etc/farm/worker.env"
    start_unit "$host" farm-worker.service
}
declare -A worker
for host in w1 w2 w3; do worker[$host]=$(worker_host "$host"); done

# psql ON THE DB HOST.
sql() { ip netns exec farm-db runuser -u postgres -- psql -h "$pgdata" -U farm -d farm -At -c "$1"; }
for _ in $(seq 150); do [[ $(sql "SELECT count(*) FROM workers WHERE state <> 'lost'") -ge 3 ]] && break; sleep 0.2; done
log "3 workers connected: $(sql "SELECT string_agg(id, ' ' ORDER BY id) FROM workers")"

# --- The job, from the client host, and the faults. -------------------------------------------
on client farm submit /mnt/media/job.json -o /srv/renders/job.mp4 --database "$database" --chunk-seconds 1 \
    --no-cache >"$state/submit.out"
job=$(grep -o '[0-9]\+' "$state/submit.out" | head -1)
log "job $job submitted from the client host: $(sql "SELECT count(*) FROM chunks WHERE job_id = $job") chunks"
done_chunks() { sql "SELECT count(*) FROM chunks WHERE job_id = $job AND state = 'done'"; }
wait_done() { for _ in $(seq 600); do [[ $(done_chunks) -ge $1 ]] && return; sleep 0.1; done; }

wait_done 3
log "killing worker host w1 mid-job (SIGKILL to everything in it) with $(done_chunks) chunks done"
ip netns pids farm-w1 | xargs -r kill -9

wait_done 8
log "killing the coordinator host with $(done_chunks) chunks done, and starting it again"
ip netns pids farm-coord | xargs -r kill -9
sleep 1
coordinator=$(start_unit coord farm-coordinator.service)

# A second job over the HTTP API, from the client host. It waits, paused, for the new node, so
# that the time measured below ends when the node renders, not when work happens to come.
token=$(on coord runuser -u farm -- env "DATABASE_URL=$database" farm tokens create deploy-test --role submit |
    grep -o 'farm_[A-Za-z0-9_-]*' | head -1)
[[ -n "$token" ]] || { log "FAILED: no token"; exit 1; }
body="$(python3 -c 'import json, sys; print(json.dumps({"project": json.load(open(sys.argv[1])), "output": sys.argv[2]}))' \
    "$media/job.json" /srv/renders/http.mkv)"
# The client host has no curl; this machine's, in the client's namespace, is the same call over
# the same network.
http_job=$(ip netns exec farm-client curl -sf -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
    --data "$body" "http://${address[coord]}:8080/api/jobs" | python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])')
on client farm pause "$http_job" --database "$database" >/dev/null
log "job $http_job submitted over HTTP, paused"

log "a new render node joins: from a bare bookworm root file system to rendering"
start=$(now)
rm -rf "$state/bare" && cp -a "$state/bookworm" "$state/bare"
chroot_mounts "$state/bare"
install_farm "$state/bare"
for mount in $(awk -v root="$state/bare" '$2 ~ "^" root {print $2}' /proc/mounts | sort -r); do umount -l "$mount"; done
make_host w4 "$state/bare"
worker[w4]=$(worker_host w4)
for _ in $(seq 600); do
    [[ $(sql "SELECT count(*) FROM workers WHERE id LIKE 'w4@%' AND state <> 'lost'") -ge 1 ]] && break
    sleep 0.1
done
on client farm resume "$http_job" --database "$database" >/dev/null
for _ in $(seq 600); do
    [[ $(sql "SELECT count(*) FROM attempts WHERE worker_id LIKE 'w4@%'") -ge 1 ]] && break
    sleep 0.1
done
joined=$(since "$start")
log "w4 rendering its first chunk $joined s after the bare root file system was copied"


for id in "$job" "$http_job"; do
    for _ in $(seq 1200); do
        state_now=$(sql "SELECT state FROM jobs WHERE id = $id")
        [[ $state_now == done || $state_now == failed || $state_now == cancelled ]] && break
        sleep 0.25
    done
    [[ $state_now == done ]] || { log "FAILED: job $id is $state_now: $(sql "SELECT error FROM jobs WHERE id = $id")"; exit 1; }
done
log "both jobs done; w2, reading its own copy, rendered $(sql "SELECT count(*) FROM attempts WHERE worker_id LIKE 'w2@%' AND outcome = 'done'") chunks"
[[ $(sql "SELECT count(*) FROM attempts WHERE worker_id LIKE 'w2@%' AND outcome = 'done'") -ge 1 ]] ||
    { log "FAILED: the worker on a copy of the media rendered nothing"; exit 1; }

# A copy with one changed byte (same size and modification time), read by the only worker left.
changed="$state/media-w3-changed"
rm -rf "$changed" && cp -r --preserve=timestamps "$media" "$changed"
size=$(stat -c %s "$changed/clip.mp4")
printf '\xff' | dd of="$changed/clip.mp4" bs=1 seek=$((size / 2)) conv=notrunc status=none
touch -r "$media/clip.mp4" "$changed/clip.mp4"
for host in w2 w4; do ip netns pids "farm-$host" | xargs -r kill -9; done
ip netns pids farm-w3 | xargs -r kill -9
umount "$(root w3)/mnt/media" && mount --bind -o ro "$changed" "$(root w3)/mnt/media"
worker[w3]=$(start_unit w3 farm-worker.service)
on client farm submit /mnt/media/job.json -o /srv/renders/changed.mp4 --database "$database" --no-cache \
    >"$state/submit-changed.out"
changed_job=$(grep -o '[0-9]\+' "$state/submit-changed.out" | head -1)
for _ in $(seq 1200); do
    state_now=$(sql "SELECT state FROM jobs WHERE id = $changed_job")
    [[ $state_now == done || $state_now == failed ]] && break
    sleep 0.25
done
error=$(sql "SELECT error FROM jobs WHERE id = $changed_job")
if [[ $state_now != failed || $error != *"assets.clip: media changed since the job was submitted"* ]]; then
    log "FAILED: job $changed_job, read from a copy with a changed byte, is $state_now: $error"
    exit 1
fi
log "job $changed_job, read by w3 from a copy with one changed byte, failed: $error"

# --- Checks. -------------------------------------------------------------------------------------
twice=$(sql "SELECT count(*) FROM (SELECT a.chunk_id FROM attempts a JOIN attempts b ON a.chunk_id = b.chunk_id
    AND a.outcome = 'done' AND b.started_at > a.finished_at) AS again")
log "attempts started on a chunk after it was accepted: $twice; lost attempts (the killed hosts'): \
$(sql "SELECT count(*) FROM attempts WHERE outcome = 'lost'")"
[[ $twice == 0 ]] || { log "FAILED: an accepted chunk was rendered again"; exit 1; }

on client farm render /mnt/media/examples/basic.json -o /tmp/basic.mp4 --local >/dev/null 2>&1
log "farm render --local examples/basic.json on the client host: $(ffprobe -v error -show_entries \
    format=duration:stream=codec_name -of csv=p=0 "$(root client)/tmp/basic.mp4" | tr '\n' ' ')"
local_dir="$state/local" && rm -rf "$local_dir" && mkdir -p "$local_dir"
status=0
for output in job.mp4 http.mkv; do
    # The same container, as AAC's priming is signalled differently in MP4 and Matroska.
    on client farm render /mnt/media/job.json -o "/tmp/local-$output" --local >/dev/null 2>&1
    cp "$(root client)/tmp/local-$output" "$local_dir/$output"
    file="$(root coord)/srv/renders/$output"
    for stream in v a; do
        a=$(ffmpeg -hide_banner -nostdin -v error -i "$file" -map "0:$stream" -f md5 -)
        b=$(ffmpeg -hide_banner -nostdin -v error -i "$local_dir/$output" -map "0:$stream" -f md5 -)
        if [[ $a == "$b" ]]; then
            log "$output: decoded $([[ $stream == v ]] && echo frames || echo samples) equal --local's ($a)"
        else
            log "FAILED: $output: decoded $stream differs from --local ($a against $b)"
            status=1
        fi
    done
done
((status == 0)) || exit 1
log "PASSED: a bare root file system to a worker rendering in $joined s"
