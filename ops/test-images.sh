#!/usr/bin/env bash
# Runs the images ops/build-images.sh made, for real, with podman:
#   bash ops/test-images.sh            (as root; after ops/build-images.sh)
#   1. `farm --version` (and `farm-worker --version`) in each image;
#   2. `farm render --local examples/basic.json` in farm-cli with the examples mounted, the output
#      checked with ffprobe;
#   3. a farm from the images in a network namespace of its own (so the images' default ports and
#      names are used as they are, and nothing on this machine's ports is touched): farm-postgres,
#      farm-coordinator as its CMD says, two farm-worker replicas configured by the image's FARM_*
#      defaults, keys made with farm-cli, the media mounted read-only; a job submitted and waited
#      for with farm-cli, its output compared with step 2's by decoded frames and samples;
#   4. docker/compose.yaml with podman-compose (pinned, in .build/compose-venv): up, keys, a job,
#      the same comparison. Its outcome is printed either way; FARM_SKIP_COMPOSE=1 skips it.
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$(pwd)"
[[ $(id -u) -eq 0 ]] || { echo "test-images: run as root (podman's storage, network namespaces)" >&2; exit 1; }
. ops/images/podman-env.sh
state="$FARM_IMAGES_DIR/test"
exec 9>"$FARM_IMAGES_DIR/test.lock"
flock -n 9 || { echo "test-images: another run holds $FARM_IMAGES_DIR/test.lock" >&2; exit 1; }
log() { printf '%s test-images: %s\n' "$(date +%T)" "$*" >&2; }
fail() { log "FAILED: $*"; exit 1; }
netns=farm-images
containers=(farm-test-postgres farm-test-coordinator farm-test-worker-1 farm-test-worker-2)
cleanup() {
    set +e
    for container in "${containers[@]}"; do podman rm -f -v -t 2 "$container" >/dev/null 2>&1; done
    ip netns del "$netns" 2>/dev/null
}
trap cleanup EXIT
cleanup

for image in farm-coordinator farm-worker farm-cli farm-postgres; do
    podman image exists "localhost/$image:latest" || fail "no image $image: run ops/build-images.sh first"
done
# The uid the package gave the farm user in the images: mounted folders it writes are its own.
farm_uid="$(podman run --rm --entrypoint id localhost/farm-cli -u)"
farm_gid="$(podman run --rm --entrypoint id localhost/farm-cli -g)"
log "the images run as farm, uid $farm_uid gid $farm_gid"

# --- 1. Versions. --------------------------------------------------------------------------------
for image in farm-coordinator farm-worker farm-cli; do
    version="$(podman run --rm --entrypoint farm "localhost/$image" --version | head -1)"
    log "$image: farm --version: $version"
done
log "farm-worker: farm-worker --version: $(podman run --rm localhost/farm-worker --version | head -1)"

# --- 2. farm render --local in the cli image. ---------------------------------------------------
# The examples' media, as examples/README.md makes it (files already there are kept).
media="$repo/examples/media"
mkdir -p "$media"
make_media() { [[ -s "$media/$1" ]] || ffmpeg -hide_banner -nostdin -v error -y "${@:2}" "$media/$1"; }
make_media clip-a.mp4 -f lavfi -i testsrc2=size=1280x720:rate=30:duration=8 \
    -f lavfi -i sine=frequency=440:sample_rate=48000:duration=8 -c:v libx264 -preset veryfast -pix_fmt yuv420p \
    -c:a aac -ac 2
make_media clip-b.mp4 -f lavfi -i testsrc=size=1280x720:rate=25:duration=8 -c:v libx264 -preset veryfast -pix_fmt yuv420p
make_media music.wav -f lavfi -i sine=frequency=220:beep_factor=4:sample_rate=48000:duration=12 -ac 2 -c:a pcm_s16le
make_media logo.png -f lavfi -i "color=c=0x3366CC@0.75:size=256x128,format=rgba" -frames:v 1

rm -rf "$state" && mkdir -p "$state/output" "$state/keys/workers"
chown "$farm_uid:$farm_gid" "$state/output" "$state/keys" "$state/keys/workers"
podman run --rm -v "$repo/examples:/examples:ro" -v "$state/output:/output" localhost/farm-cli \
    render --local /examples/basic.json -o /output/local.mp4 >"$state/render-local.log" 2>&1 ||
    { cat "$state/render-local.log" >&2; fail "farm render --local in farm-cli"; }
probe="$(ffprobe -v error -show_entries stream=codec_name,width,height -of csv=p=0 "$state/output/local.mp4" | tr '\n' ' ')"
duration="$(ffprobe -v error -show_entries format=duration -of csv=p=0 "$state/output/local.mp4")"
log "farm-cli: render --local examples/basic.json: streams $probe, $duration s"
[[ $probe == "h264,1280,720 aac "* ]] || fail "the local render is not 1280x720 H.264 with AAC: $probe"
awk -v d="$duration" 'BEGIN { exit !(d > 7.9 && d < 8.2) }' || fail "the local render lasts $duration s, not 8"

# --- 3. A farm from the images. ------------------------------------------------------------------
ip netns add "$netns"
ip -n "$netns" link set lo up
# Every container of the farm in that namespace: they reach one another at 127.0.0.1, under the
# names compose.yaml gives them.
net=(--network "ns:/run/netns/$netns" --add-host postgres:127.0.0.1 --add-host coordinator:127.0.0.1)
cli() { podman run --rm "${net[@]}" -e DATABASE_URL=postgresql://farm:farm@postgres:5432/farm \
    -v "$repo/examples:/media:ro" -v "$state/output:/output" -v "$state/keys:/keys" localhost/farm-cli "$@"; }

podman run -d --name farm-test-postgres "${net[@]}" -e POSTGRES_USER=farm -e POSTGRES_PASSWORD=farm \
    -e POSTGRES_DB=farm localhost/farm-postgres >/dev/null
for _ in $(seq 100); do podman exec farm-test-postgres pg_isready -q -h 127.0.0.1 -U farm -d farm && break; sleep 0.3; done
podman exec farm-test-postgres pg_isready -h 127.0.0.1 -U farm -d farm >/dev/null || fail "farm-postgres did not start"
log "farm-postgres: $(podman exec farm-test-postgres postgres --version)"
sql() { podman exec farm-test-postgres psql -U farm -d farm -At -c "$1"; }

cli keys generate coordinator --dir /keys >/dev/null
cli keys generate worker --dir /keys/workers >/dev/null
log "keys made with farm-cli: $(cd "$state/keys" && find . -type f | sort | tr '\n' ' ')"

podman run -d --name farm-test-coordinator "${net[@]}" -e DATABASE_URL=postgresql://farm:farm@postgres:5432/farm \
    -v "$repo/examples:/media:ro" -v "$state/output:/output" -v "$state/keys:/keys:ro" localhost/farm-coordinator >/dev/null
for n in 1 2; do
    podman run -d --name "farm-test-worker-$n" --hostname "worker-$n" "${net[@]}" \
        -v "$repo/examples:/media:ro" -v "$state/keys:/keys:ro" localhost/farm-worker >/dev/null
done
for _ in $(seq 150); do
    [[ $(sql "SELECT count(*) FROM workers WHERE state <> 'lost'" 2>/dev/null || echo 0) -ge 2 ]] && break
    sleep 0.2
done
workers="$(sql "SELECT string_agg(id, ' ' ORDER BY id) FROM workers WHERE state <> 'lost'" 2>/dev/null || true)"
[[ $(wc -w <<<"$workers") -ge 2 ]] || {
    for container in farm-test-coordinator farm-test-worker-1; do podman logs "$container" 2>&1 | tail -5 >&2; done
    fail "two workers did not join (connected: ${workers:-none})"
}
log "connected to the coordinator with the worker key: $workers"

cli submit /media/basic.json -o /output/farm.mp4 --chunk-seconds 1 --no-cache >"$state/submit.out"
job="$(grep -o '[0-9]\+' "$state/submit.out" | head -1)"
log "job $job submitted with farm-cli: $(sql "SELECT count(*) FROM chunks WHERE job_id = $job") chunks"
cli wait "$job" >"$state/wait.out" 2>&1 || { cat "$state/wait.out" >&2; fail "job $job: $(sql "SELECT error FROM jobs WHERE id = $job")"; }
log "job $job: $(tail -1 "$state/wait.out")"
log "chunks rendered per worker: $(sql "SELECT string_agg(worker_id || '=' || n, ' ') FROM (SELECT worker_id, count(*) AS n
    FROM attempts WHERE outcome = 'done' GROUP BY worker_id ORDER BY worker_id) AS per_worker")"

# compare A B LABEL: decoded frames and samples (ffmpeg -f md5) of two files.
compare() {
    local stream a b status=0
    for stream in v a; do
        a="$(ffmpeg -hide_banner -nostdin -v error -i "$1" -map "0:$stream" -f md5 -)"
        b="$(ffmpeg -hide_banner -nostdin -v error -i "$2" -map "0:$stream" -f md5 -)"
        if [[ $a == "$b" ]]; then
            log "$3: decoded $([[ $stream == v ]] && echo frames || echo samples) equal --local's ($a)"
        else
            log "$3: decoded $stream differs from --local's ($a against $b)"
            status=1
        fi
    done
    return $status
}
compare "$state/output/farm.mp4" "$state/output/local.mp4" "farm of images" || fail "the farm's output differs"
cleanup

# --- 4. compose.yaml with podman-compose. --------------------------------------------------------
[[ ${FARM_SKIP_COMPOSE:-} == 1 ]] && { log "PASSED (compose skipped)"; exit 0; }
compose_version=1.6.0
venv="$repo/.build/compose-venv"
if [[ $("$venv/bin/podman-compose" --version 2>/dev/null | grep -o 'podman-compose version [0-9.]*') != \
    "podman-compose version $compose_version" ]]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check "podman-compose==$compose_version"
fi
project="$state/compose"
rm -rf "$project" && mkdir -p "$project/output" "$project/keys/workers"
cp docker/compose.yaml "$project/"
# The project in ./media as compose.yaml expects it, its assets in ./media/media as it names them.
mkdir -p "$project/media" && cp examples/basic.json "$project/media/" && cp -r examples/media "$project/media/media"
chown "$farm_uid:$farm_gid" "$project/output" "$project/keys" "$project/keys/workers"
compose() { (cd "$project" && "$venv/bin/podman-compose" -p farmtest "$@"); }
# `down` leaves replicas past the first (it does not know the scale) and so the network: what
# carries the project's label goes too, dependants first.
compose_down() {
    compose down -v >/dev/null 2>&1 || true
    for _ in 1 2 3; do
        podman ps -aq --filter label=io.podman.compose.project=farmtest | xargs -r podman rm -f -v -t 2 >/dev/null 2>&1 || true
    done
    podman network rm farmtest_default >/dev/null 2>&1 || true
    podman volume ls -q --filter label=io.podman.compose.project=farmtest | xargs -r podman volume rm >/dev/null 2>&1 || true
}
compose_down
trap 'compose_down; cleanup' EXIT
compose_status=0
{
    # podman-compose runs a service of a profile only when the profile is named.
    compose --profile cli run --rm -T cli keys generate coordinator --dir /keys &&
        compose --profile cli run --rm -T cli keys generate worker --dir /keys/workers &&
        compose up -d --scale worker=2 &&
        # Right after `up` the coordinator may not have recorded itself yet (it waits for
        # PostgreSQL, which compose starts without waiting for its healthcheck here): queued
        # anyway, it renders as soon as the coordinator serves.
        compose --profile cli run --rm -T cli submit /media/basic.json -o /output/compose.mp4 --chunk-seconds 1 \
            --no-cache --queue-only >"$state/compose-submit.out" &&
        compose --profile cli run --rm -T cli wait "$(grep -o '[0-9]\+' "$state/compose-submit.out" | head -1)" &&
        compose ps &&
        podman port farmtest_coordinator_1
} >"$state/compose.log" 2>&1 || compose_status=$?
if ((compose_status == 0)) && compare "$project/output/compose.mp4" "$state/output/local.mp4" "podman-compose"; then
    log "podman-compose $compose_version: $(grep '^job .* done' "$state/compose.log" | tail -1)"
    log "podman-compose $compose_version: compose.yaml ran the farm: $(podman logs farmtest_coordinator_1 2>&1 |
        grep -c 'joined') worker joins, the coordinator's port published at $(podman port farmtest_coordinator_1 | tr -d '\n')"
    # podman 4 starts the services at once (it ignores service_healthy): the coordinator may
    # have come up before PostgreSQL, and waited.
    log "podman-compose $compose_version: the coordinator waited for the database $(podman logs farmtest_coordinator_1 2>&1 |
        grep -c 'waiting for the database') times before it led"
else
    compose ps >>"$state/compose.log" 2>&1 || true
    compose logs >>"$state/compose.log" 2>&1 || true
    log "podman-compose $compose_version: compose.yaml did not complete a job (exit $compose_status); the end of $state/compose.log:"
    tail -25 "$state/compose.log" >&2
    fail "podman-compose"
fi
log "PASSED"
