#!/usr/bin/env bash
# Builds the farm's images with podman, from the Debian package and a local Debian base: no
# registry is needed or used.
#   bash ops/build-images.sh            (as root; prints each image's name and size)
# Steps:
#   1. the package, by ops/package-deb.sh (Swift 6.3.1, as the tests use);
#   2. debian:bookworm-slim, made here: debootstrap --variant=minbase bookworm (once, cached in
#      $FARM_IMAGES_DIR/bookworm), slimmed as Debian's own slim image is (no documentation,
#      manual pages or translations; apt keeps no caches), imported with `podman import` under
#      the names the Dockerfile's FROM resolves to locally;
#   3. docker/Dockerfile's targets coordinator, worker and cli, tagged farm-coordinator,
#      farm-worker and farm-cli (VERSION and latest), from a context holding only the package;
#   4. farm-postgres: PostgreSQL 15 from Debian onto the same base (docker/postgres), for
#      compose.yaml and ops/test-images.sh.
# FARM_DEB=PATH: use that package instead of building one.
# Delete $FARM_IMAGES_DIR/base to make the base again (e.g. for newer Debian packages).
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$(pwd)"
[[ $(id -u) -eq 0 ]] || { echo "build-images: run as root (debootstrap, podman's storage)" >&2; exit 1; }
. ops/images/podman-env.sh
state="$FARM_IMAGES_DIR"
log() { printf '%s build-images: %s\n' "$(date +%T)" "$*" >&2; }
exec 9>"$state/build.lock"
flock -n 9 || { echo "build-images: another build holds $state/build.lock" >&2; exit 1; }

# --- 1. The package. ---------------------------------------------------------------------------
# One Swift build at a time on a machine (the lock every build here takes). FARM_DEB=PATH uses a
# package built before instead, e.g. while working on the images themselves.
if [[ -n "${FARM_DEB:-}" ]]; then
    deb="$(realpath "$FARM_DEB")"
else
    deb="$(flock /tmp/swift-build.lock bash ops/package-deb.sh "$state/deb")"
fi
version="$(dpkg-deb -f "$deb" Version)"
context="$state/context"
rm -rf "$context" && mkdir -p "$context" && cp "$deb" "$context/"
log "package: $deb ($(du -h "$deb" | cut -f1))"

# --- 2. The base image. ------------------------------------------------------------------------
bash ops/debootstrap-bookworm.sh "$state/bookworm"
base="$state/base"
if [[ ! -x "$base/usr/bin/apt-get" ]]; then
    log "slimming a copy of it into $base"
    rm -rf "$base.tmp" && cp -a "$state/bookworm" "$base.tmp"
    # What Debian's slim images set (debuerreotype): dpkg installs no documentation, manual pages
    # or translations; apt keeps no package caches or translated lists.
    cat >"$base.tmp/etc/dpkg/dpkg.cfg.d/docker" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/lintian/overrides/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
path-exclude /usr/share/man/*
EOF
    cat >"$base.tmp/etc/apt/apt.conf.d/docker-clean" <<'EOF'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
EOF
    echo 'Acquire::Languages "none";' >"$base.tmp/etc/apt/apt.conf.d/docker-no-languages"
    echo 'Apt::AutoRemove::SuggestsImportant "false";' >"$base.tmp/etc/apt/apt.conf.d/docker-autoremove-suggests"
    # The point releases' and security updates, as the published image has.
    rm -f "$base.tmp/etc/apt/sources.list"
    cat >"$base.tmp/etc/apt/sources.list.d/debian.sources" <<'EOF'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
    find "$base.tmp/usr/share/doc" -mindepth 1 ! -type d ! -name copyright -delete
    find "$base.tmp/usr/share/doc" -mindepth 1 -type d -empty -delete
    rm -rf "$base.tmp"/usr/share/{man,info,groff,lintian,linda}/* "$base.tmp"/var/lib/apt/lists/* \
        "$base.tmp"/var/cache/apt/* "$base.tmp"/var/cache/debconf/*-old "$base.tmp"/var/log/*
    find "$base.tmp/usr/share/locale" -mindepth 1 -maxdepth 1 ! -name locale.alias -exec rm -rf {} +
    : >"$base.tmp/etc/resolv.conf"
    echo localhost >"$base.tmp/etc/hostname"
    podman untag localhost/debian:bookworm-slim 2>/dev/null || true
    podman untag docker.io/library/debian:bookworm-slim 2>/dev/null || true
    mv "$base.tmp" "$base"
fi
if ! podman image exists docker.io/library/debian:bookworm-slim; then
    log "podman import: debian:bookworm-slim ($(du -sh "$base" | cut -f1))"
    tar -C "$base" --numeric-owner -c . |
        podman import --change 'CMD ["bash"]' - docker.io/library/debian:bookworm-slim >/dev/null
    podman tag docker.io/library/debian:bookworm-slim localhost/debian:bookworm-slim
fi

# --- 3 and 4. The images. ----------------------------------------------------------------------
build() { # NAME DOCKERFILE CONTEXT [podman build options...]
    local name=$1 file=$2 dir=$3
    shift 3
    log "podman build $name"
    podman build --network host --pull=never -f "$file" "$@" -t "localhost/$name:latest" "$dir" \
        >"$state/build-$name.log" 2>&1 || { tail -30 "$state/build-$name.log" >&2; log "FAILED: $name"; exit 1; }
}
for target in coordinator worker cli; do
    build "farm-$target" docker/Dockerfile "$context" --target "$target" \
        --build-arg "FARM_DEB_SHA256=$(sha256sum "$deb" | cut -d' ' -f1)"
    podman tag "localhost/farm-$target:latest" "localhost/farm-$target:$version"
done
build farm-postgres docker/postgres/Dockerfile docker/postgres

for image in farm-coordinator farm-worker farm-cli farm-postgres; do
    podman image inspect --format '{{.Size}}' "localhost/$image:latest" |
        awk -v name="localhost/$image" '{ printf "%s\t%.0f MB\n", name, $1 / 1000000 }'
done
podman image inspect --format '{{.Size}}' docker.io/library/debian:bookworm-slim |
    awk '{ printf "debian:bookworm-slim (the base)\t%.0f MB\n", $1 / 1000000 }'
