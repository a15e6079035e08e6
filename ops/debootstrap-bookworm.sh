#!/usr/bin/env bash
# Makes DIR a minimal Debian bookworm root file system (debootstrap --variant=minbase) unless it
# already is one; a half-made one is started again. The deployment and image tests' base.
#   bash ops/debootstrap-bookworm.sh DIR
set -euo pipefail
cd "$(dirname "$0")/.."
dir="$1"
[[ -x "$dir/usr/bin/apt-get" ]] && exit 0
bash ops/install-packages.sh debootstrap debootstrap
echo "$(date +%T) debootstrap --variant=minbase bookworm into $dir (once)" >&2
rm -rf "$dir.tmp"
debootstrap --variant=minbase bookworm "$dir.tmp" http://deb.debian.org/debian >/dev/null
mv "$dir.tmp" "$dir"
